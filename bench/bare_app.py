"""The baseline ``scripts/bench.py`` divides every figure by: the cheapest FastAPI endpoint.

Served by the same uvicorn command line as the real app (same workers, same
flags), so a ratio to it cancels out the machine and the moment's CPU steal.
"""

from fastapi import FastAPI

app = FastAPI(title="bench baseline", openapi_url=None, docs_url=None, redoc_url=None)


@app.get("/bare")
async def bare() -> dict[str, str]:
    """A small JSON object: the floor for any FastAPI GET on this machine."""
    return {"status": "ok"}
