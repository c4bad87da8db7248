"""Write the OpenAPI document the app serves to openapi/openapi.json."""

import json
import sys
from pathlib import Path

from app.main import create_app

PATH = Path(__file__).resolve().parents[1] / "openapi" / "openapi.json"


def render() -> str:
    return json.dumps(create_app().openapi(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    PATH.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {PATH}\n")
