# The on-node supervisor's image (docs/supervise.md): sparktui with its dependencies,
# entrypoint `sparktui`. Build it on the head, from a checkout of sparktui:
#   docker build -f supervisor.Dockerfile -t sparktui-supervisor:latest .
FROM python:3.12-slim
COPY pyproject.toml README.md /src/
COPY sparktui /src/sparktui
COPY host-scripts /src/host-scripts
COPY locales /src/locales
COPY recipes /src/recipes
RUN pip install --no-cache-dir /src && rm -rf /src
ENTRYPOINT ["sparktui"]
