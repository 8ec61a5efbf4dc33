# The on-node supervisor's image (`supervise --on-node`, `S` in the dashboard): sparktui
# with its dependencies, entrypoint `sparktui`, built from a sparktui wheel. Shipped
# inside sparktui: `sparktui supervise --dockerfile` prints it. On the head, in a folder
# holding only this file and the wheel of the sparktui you run (`pip download --no-deps
# sparktui==VERSION`, or `pip wheel --no-deps -w . DIR` of a checkout):
#   sparktui supervise --dockerfile > supervisor.Dockerfile
#   docker build -f supervisor.Dockerfile -t sparktui-supervisor:latest .
# (A checkout builds without a wheel: supervisor.Dockerfile at its top level.)
FROM python:3.12-slim
COPY sparktui-*.whl /tmp/
RUN pip install --no-cache-dir /tmp/sparktui-*.whl && rm /tmp/sparktui-*.whl
ENTRYPOINT ["sparktui"]
