# sparkload in a container: the image behind docker-compose.yml's master, worker and sim services.
#   docker build -t sparkload .
# The checkout is installed the same way as on a workstation (pip install -r requirements.txt);
# results go to /sparkload/results, which docker-compose.yml mounts from the host.
FROM python:3.12-slim

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

# Locust's web UI, and the master's port for workers on other machines.
EXPOSE 8089 5557
CMD ["sparkload", "run", "--help"]
