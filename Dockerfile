# gov gateway image: build stage compiles the workspaces, run stage holds the
# compiled packages and production dependencies only, as non-root user 999.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN npm ci --no-fund --no-audit && npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production GOV_HOST=0.0.0.0 GOV_PORT=8080
WORKDIR /app
COPY --from=build --chown=999:999 /src /app
USER 999:999
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s CMD node -e "fetch('http://127.0.0.1:8080/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "--import", "reflect-metadata", "cli/bin/gov.js"]
CMD ["serve"]
