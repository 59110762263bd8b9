import { GovError } from '@gov/core'
import { parseDocument } from 'yaml'
import type { AgentService } from '../agents/agent-service.js'
import { agentView } from '../agents/agent-service.js'
import { type AdminAudit, agentChange, idChange, pipelineChange } from '../audit/admin-entry.js'
import { parseJson, readBody } from '../http/body.js'
import { sendJson } from '../http/respond.js'
import type { Router } from '../http/router.js'
import type { Logger } from '../logging.js'
import type { PipelineService } from '../pipelines/pipeline-service.js'
import { type ContentSettings, DEFAULT_CONTENT_SETTINGS, type PipelineInput } from '../storage/store.js'
import type { AdminGuard } from './admin-guard.js'
import { PipelineCreate, PipelineUpdate, pathId, validator } from './schemas.js'
import { checkYamlDepth } from './yaml-depth.js'

const checkCreate = validator(PipelineCreate)
const checkUpdate = validator(PipelineUpdate)
const YAML_TYPES = /^(application|text)\/(x-)?yaml\b|^text\/plain\b/

function input(
  body: {
    pipeline_id?: string
    preset: string
    overrides?: PipelineInput['overrides']
    allow_flags?: string[]
    content?: Partial<ContentSettings>
  },
  id: string,
): PipelineInput {
  return {
    pipeline_id: id,
    preset: body.preset,
    overrides: body.overrides ?? {},
    allow_flags: body.allow_flags ?? [],
    // An update replaces the whole definition: keys left out go back to their defaults.
    content: { ...DEFAULT_CONTENT_SETTINGS, ...body.content },
  }
}

/** A YAML warning (unknown tag, unknown directive…): the definition still parses. */
export interface YamlWarning {
  code: string
  message: string
  line: number | null
  col: number | null
}

/**
 * Parse a `gov-pipeline.yaml` (or JSON) definition; 400 `invalid_yaml` when it
 * is not YAML. Warnings are returned, never printed: the caller logs them
 * through the JSON logger (yaml would write them to stderr as plain text).
 */
export function parsePipelineDefinition(text: string): { definition: unknown; warnings: YamlWarning[] } {
  let doc: unknown
  let warnings: YamlWarning[]
  checkYamlDepth(text)
  try {
    const parsed = parseDocument(text, { logLevel: 'silent' })
    if (parsed.errors.length > 0) throw parsed.errors[0]
    warnings = parsed.warnings.map((w) => ({
      code: w.code,
      // yaml appends the offending source lines after " at line …"; the position is kept apart.
      message: w.message.split(' at line ')[0]!,
      line: w.linePos?.[0].line ?? null,
      col: w.linePos?.[0].col ?? null,
    }))
    doc = parsed.toJS({ maxAliasCount: 100 }) as unknown
  } catch (err) {
    throw new GovError(
      'invalid_yaml',
      `pipeline definition is not valid YAML: ${(err as Error).message}`,
      400,
    )
  }
  // `gov assess` writes the definition under `pipeline:`; a bare definition is accepted too.
  const definition =
    doc && typeof doc === 'object' && 'pipeline' in doc ? (doc as { pipeline: unknown }).pipeline : doc
  return { definition, warnings }
}

/** Pipelines: create, list, get (with resolved steps), update, delete, assign, import. */
export function registerPipelineRoutes(
  router: Router,
  deps: {
    guard: AdminGuard
    pipelines: PipelineService
    agents: AgentService
    audit: AdminAudit
    maxBodyBytes: number
    /** Where YAML warnings of imported definitions go. */
    logger?: Logger
  },
): void {
  const { guard, pipelines, agents, audit } = deps

  router.on('POST', '/pipelines', async (req, res) => {
    const admin = await guard.require(req, 'admin:write')
    const body = checkCreate(parseJson(await readBody(req, deps.maxBodyBytes)))
    const record = await pipelines.create(input(body, body.pipeline_id), audit, (created) =>
      pipelineChange(admin, 'pipeline.create', 201, created),
    )
    sendJson(res, 201, pipelines.view(record))
  })

  router.on('GET', '/pipelines', async (req, res) => {
    await guard.require(req, 'admin:read')
    sendJson(res, 200, { pipelines: await pipelines.list() })
  })

  router.on('GET', '/pipelines/:pipeline_id', async (req, res, params) => {
    await guard.require(req, 'admin:read')
    sendJson(res, 200, pipelines.view(await pipelines.get(pathId(params.pipeline_id, 'pipeline'))))
  })

  router.on('PUT', '/pipelines/:pipeline_id', async (req, res, params) => {
    const admin = await guard.require(req, 'admin:write')
    const id = pathId(params.pipeline_id, 'pipeline')
    const body = checkUpdate(parseJson(await readBody(req, deps.maxBodyBytes)))
    if (body.pipeline_id !== undefined && body.pipeline_id !== id) {
      throw new GovError('invalid_request', 'pipeline_id in the body differs from the path', 400)
    }
    const record = await pipelines.update(input(body, id), audit, (updated) =>
      pipelineChange(admin, 'pipeline.update', 200, updated),
    )
    sendJson(res, 200, pipelines.view(record))
  })

  router.on('DELETE', '/pipelines/:pipeline_id', async (req, res, params) => {
    const admin = await guard.require(req, 'admin:write')
    const id = pathId(params.pipeline_id, 'pipeline')
    await pipelines.delete(id, audit, () => idChange(admin, 'pipeline.delete', 204, { pipelineId: id }))
    res.writeHead(204).end()
  })

  router.on('PUT', '/pipelines/:pipeline_id/assign/:agent_id', async (req, res, params) => {
    const admin = await guard.require(req, 'admin:write')
    req.resume()
    const agent = await agents.assign(
      pathId(params.agent_id, 'agent'),
      pathId(params.pipeline_id, 'pipeline'),
      audit,
      (assigned) => agentChange(admin, 'pipeline.assign', 200, assigned),
    )
    sendJson(res, 200, agentView(agent))
  })

  router.on('POST', '/pipelines/import', async (req, res) => {
    const admin = await guard.require(req, 'admin:write')
    const raw = await readBody(req, deps.maxBodyBytes)
    const type = String(req.headers['content-type'] ?? '')
    const { definition, warnings } =
      YAML_TYPES.test(type) || !type.includes('json')
        ? parsePipelineDefinition(raw.toString('utf8'))
        : { definition: parseJson(raw), warnings: [] }
    const body = checkCreate(definition)
    if (warnings.length > 0) {
      deps.logger?.warn({ pipeline: body.pipeline_id, warnings }, 'pipeline definition has YAML warnings')
    }
    const { record, created } = await pipelines.upsert(input(body, body.pipeline_id), audit, (done, isNew) =>
      pipelineChange(admin, 'pipeline.import', isNew ? 201 : 200, done, { created: isNew }),
    )
    const status = created ? 201 : 200
    sendJson(res, status, { ...pipelines.view(record), ...(warnings.length ? { warnings } : {}) })
  })
}
