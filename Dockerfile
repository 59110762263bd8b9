# gov gateway image: the build stage compiles the workspaces; the run stage
# holds the compiled packages and production dependencies only. The files
# belong to root and are read-only for the service user 999, so even without
# the runtime's read-only root filesystem gov cannot change its own code; the
# entrypoint disables core dumps. Run it with --read-only --tmpfs /tmp
# --cap-drop ALL --security-opt no-new-privileges (docker-compose.yml does).
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN npm ci --no-fund --no-audit && npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production GOV_HOST=0.0.0.0 GOV_PORT=8080
WORKDIR /app
COPY --from=build /src /app
COPY deploy/docker/entrypoint.sh /usr/local/bin/gov-entrypoint
# Root-owned, not writable by anyone else; no setuid/setgid bits left for an escalation.
RUN chown -R root:root /app && chmod -R go-w /app \
 && chmod 0755 /usr/local/bin/gov-entrypoint \
 && find / -xdev -perm /6000 -type f -exec chmod a-s {} + 2>/dev/null || true
USER 999:999
EXPOSE 8080
# HTTPS when gov serves it (the certificate must name 127.0.0.1 and its CA be in NODE_EXTRA_CA_CERTS, as make-ca.sh and docker-compose.yml do).
HEALTHCHECK --interval=30s --timeout=5s CMD node -e "fetch((process.env.GOV_TLS_CERT_FILE?'https':'http')+'://127.0.0.1:'+(process.env.GOV_PORT||8080)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/local/bin/gov-entrypoint"]
CMD ["serve"]
