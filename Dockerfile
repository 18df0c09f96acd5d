# sparkload in a container: the image behind docker-compose.yml's master, worker and sim services
# and deploy/kubernetes/'s master and worker pods.
#   docker build -t sparkload .
#   docker build -t sparkload --build-arg BASE=local/sparkload-base:bookworm .   # any Python >= 3.11
# BASE is any image with python3 and pip on PATH (as `python` and `pip`): the official slim image
# by default, or a locally built one where no image registry is reachable.
# The checkout is installed the same way as on a workstation (pip install -r requirements.txt);
# results go to /sparkload/results, which docker-compose.yml mounts from the host.
ARG BASE=python:3.12-slim
FROM ${BASE}

WORKDIR /sparkload
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

# Dependencies first (this layer is rebuilt only when they change), then the rest of the checkout.
COPY requirements.txt pyproject.toml README.md ./
COPY sparkload ./sparkload
COPY analysis ./analysis
RUN pip install -r requirements.txt
COPY locustfiles ./locustfiles
COPY prompts ./prompts
COPY examples ./examples

# Locust's web UI, and the master's port for workers.
EXPOSE 8089 5557
CMD ["sparkload", "run", "--help"]
