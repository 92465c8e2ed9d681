# Gatehouse container image.
# Build:  docker build -t gatehouse .
# Run:    docker run -p 8080:8080 -v gatehouse-data:/var/lib/gatehouse \
#           -e IDP_ISSUER=https://id.example.com/ gatehouse
# Configuration is by IDP_<KEY> environment variables (see Config/idp.conf), or mount a
# file at /etc/gatehouse/idp.conf (read when present, by idp and idp-admin alike).
# The key-encryption key as a Docker secret, never in the data volume (Config/docker-compose.yml):
#   docker run --secret gatehouse_kek -e IDP_KEY_ENCRYPTION_KEY_FILE=/run/secrets/gatehouse_kek …
# Behind nginx (Config/docker-compose.yml, Config/nginx.conf):
#   IDP_LISTEN=unix:/run/gatehouse/idp.sock  the socket nginx proxies to (a shared volume)
#   IDP_TRUSTED_PROXIES=unix                 believe X-Forwarded-For/X-Request-Id only from that socket's peers
#                                            (or the proxy's address/CIDR, e.g. 172.16.0.0/12, for TCP)
#   IDP_ADMIN_LISTEN=127.0.0.1:9464          /metrics, /healthz, /readyz on a separate listener (off by default)
# `docker kill -s HUP` reloads log_level and trusted_proxies; `idp-admin doctor` checks the deployment.

# --- Build stage: the Swift toolchain, building exactly as the README does (scripts/build).
FROM swift:6.3-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libssl-dev libsqlite3-dev libpq-dev zlib1g-dev libcrypt-dev libargon2-dev libcurl4-openssl-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
COPY Migrations ./Migrations
COPY scripts ./scripts
RUN scripts/build \
 && install -D -m 0755 .build/release/idp /out/idp \
 && install -D -m 0755 .build/release/idp-admin /out/idp-admin

# --- Runtime stage: slim Debian with only the C libraries the binaries use.
# The Swift runtime and Foundation are linked statically (--static-swift-stdlib).
# libcurl4 (SMTP, upstream connections) and libpq5 (a postgresql:// database) are not linked:
# they are loaded on demand, only by a daemon whose configuration needs them (README "Memory and
# start"), and stay installed here so that SMTP and PostgreSQL work in the image.
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libssl3 libsqlite3-0 zlib1g libcrypt1 libargon2-1 libcurl4 libpq5 ca-certificates curl john-data \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system gatehouse \
 && useradd --system --gid gatehouse --home-dir /var/lib/gatehouse --shell /usr/sbin/nologin gatehouse \
 && install -d -o gatehouse -g gatehouse -m 0700 /var/lib/gatehouse
COPY --from=build /out/idp /out/idp-admin /usr/local/bin/
COPY Config/idp.conf /etc/gatehouse/idp.conf.sample
COPY scripts/healthcheck /usr/local/bin/gatehouse-healthcheck
COPY Config/nginx.conf /etc/gatehouse/nginx.conf.sample

# Listen on all interfaces inside the container; publish the port, or put nginx in front.
ENV IDP_LISTEN=0.0.0.0:8080 \
    IDP_DATABASE=/var/lib/gatehouse/idp.sqlite3
# /run/gatehouse holds the unix socket when IDP_LISTEN=unix:/run/gatehouse/idp.sock; the socket itself
# is 0660, so only the process's group (see user: in Config/docker-compose.yml) may connect.
RUN install -d -o gatehouse -g gatehouse -m 0755 /run/gatehouse
VOLUME ["/var/lib/gatehouse"]
WORKDIR /var/lib/gatehouse
USER gatehouse
EXPOSE 8080
# The probe asks the admin listener when one is set (IDP_ADMIN_LISTEN, a TCP address: the usual case
# with IDP_LISTEN=unix:…), else the unix socket, else the TCP listener; GATEHOUSE_HEALTH_URL overrides it.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD /usr/local/bin/gatehouse-healthcheck
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/idp"]
