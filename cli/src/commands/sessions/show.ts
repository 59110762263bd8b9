import { Command, Option } from 'clipanion'
import type { AdminClient } from '../../admin/admin-client.js'
import { AdminCommand } from '../../admin/admin-command.js'

/** `gov sessions show AGENT SESSION` */
export class SessionsShowCommand extends AdminCommand {
  static override paths = [['sessions', 'show']]
  static override usage = Command.Usage({
    category: 'Admin',
    description: "show a session's governance state (taint, counters)",
    details:
      "Calls `GET /sessions/{agent_id}/{session_id}` and prints what gov holds for the session (the `X-Gov-Session` of an agent's calls) as JSON. Sessions are scoped by agent: the same session id of two agents is two sessions.",
    examples: [['Why is this session blocked from tools?', '$0 sessions show support-bot conv-42']],
  })
  agentId = Option.String({ name: 'agent_id' })
  sessionId = Option.String({ name: 'session_id' })

  async run(client: AdminClient): Promise<number> {
    const { body } = await client.request(
      'GET',
      `/sessions/${encodeURIComponent(this.agentId)}/${encodeURIComponent(this.sessionId)}`,
    )
    this.print(body)
    return 0
  }
}
