#!/bin/sh
# Container entrypoint: migrate the database DATABASE_URL names, then serve.
#
# With arguments, runs them instead (e.g. `alembic current`, `alembic upgrade head`).
# RUN_MIGRATIONS=0 skips `alembic upgrade head` (for when a separate job migrates).
# WEB_CONCURRENCY sets the number of uvicorn worker processes (default 1).
set -eu

cd /app

if [ "$#" -gt 0 ]; then
    exec "$@"
fi

if [ "${RUN_MIGRATIONS:-1}" != "0" ]; then
    alembic upgrade head
fi

# With several workers, the metrics of each are files in PROMETHEUS_MULTIPROC_DIR
# (app/metrics.py): the last run's would stay in the sums.
if [ -n "${PROMETHEUS_MULTIPROC_DIR:-}" ]; then
    rm -f "${PROMETHEUS_MULTIPROC_DIR}"/*.db
fi

# exec: uvicorn becomes PID 1 and receives SIGTERM/SIGINT directly.
# --http: app/serving.py (TCP_NODELAY on every connection); --timeout-graceful-shutdown:
# open live streams are closed 3 s after SIGTERM, so a rolling restart finishes;
# --no-proxy-headers: X-Forwarded-For counts only from FORWARDED_ALLOW_IPS, which the app reads.
exec uvicorn app.main:app \
    --http app.serving:HttpToolsProtocol \
    --timeout-graceful-shutdown 3 \
    --no-proxy-headers \
    --host 0.0.0.0 \
    --port 8000 \
    --workers "${WEB_CONCURRENCY:-1}"
