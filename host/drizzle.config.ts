/**
 * drizzle-kit configuration: `npx drizzle-kit generate` (run in `host/`) writes a new
 * migration into `drizzle/` from `src/storage/schema.ts`. The same migrations serve
 * PostgreSQL and PGlite; the store applies them at `init()`.
 */
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/storage/schema.ts',
  out: './drizzle',
})
