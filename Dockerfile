# aci in a container (docs/container.md). The image holds the binary built
# beside this file, so build it first (static, no debug symbols):
#
#   CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o aci . && podman build -t aci .
#
# BASE is any Debian-like image; PACKAGES are installed on it with apt-get
# (empty: the base already has them). bubblewrap contains the model's
# commands where the runtime allows user namespaces; elsewhere run with
# ACI_SANDBOX=container, which makes the container the boundary.
ARG BASE=debian:trixie-slim
FROM ${BASE}
ARG PACKAGES="bubblewrap git ca-certificates"
RUN if [ -n "$PACKAGES" ]; then \
      apt-get update && apt-get install -y --no-install-recommends $PACKAGES && rm -rf /var/lib/apt/lists/*; \
    fi; \
    echo 'aci:x:10001:10001:aci:/home/aci:/bin/sh' >> /etc/passwd && \
    echo 'aci:x:10001:' >> /etc/group && \
    mkdir -p /home/aci /work && chown 10001:10001 /home/aci /work
COPY aci /usr/local/bin/aci
USER 10001:10001
ENV HOME=/home/aci
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/aci"]
