import { Command, Option } from 'clipanion'
import type { AdminClient } from '../../admin/admin-client.js'
import { AdminCommand } from '../../admin/admin-command.js'

/** `gov sessions clear AGENT SESSION` */
export class SessionsClearCommand extends AdminCommand {
  static override paths = [['sessions', 'clear']]
  static override usage = Command.Usage({
    category: 'Admin',
    description: "clear a session's governance state",
    details:
      'Calls `DELETE /sessions/{agent_id}/{session_id}`: taint and per-session counters are dropped on every replica, so the next call of that session starts clean. The audit trail keeps the record of the clearing.',
    examples: [['Release a session after review', '$0 sessions clear support-bot conv-42']],
  })
  agentId = Option.String({ name: 'agent_id' })
  sessionId = Option.String({ name: 'session_id' })

  async run(client: AdminClient): Promise<number> {
    await client.request(
      'DELETE',
      `/sessions/${encodeURIComponent(this.agentId)}/${encodeURIComponent(this.sessionId)}`,
    )
    this.print(
      { cleared: { agent_id: this.agentId, session_id: this.sessionId } },
      () => `cleared session ${this.sessionId} of ${this.agentId}\n`,
    )
    return 0
  }
}
