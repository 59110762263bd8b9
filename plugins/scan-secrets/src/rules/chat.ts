/** Chat platforms: tokens and webhook URLs (a webhook URL is itself the credential). */
import { keyedRule, patternRule, type SecretRule, TOKEN_RUN_CHARS, tokenRule } from '../rule.js'

export const CHAT_RULES: readonly SecretRule[] = [
  tokenRule({
    id: 'slack-bot-token',
    kind: 'slack_token',
    keywords: ['xoxb-'],
    body: 'xoxb-(?:\\d{10,13}-\\d{10,13}[A-Za-z0-9-]*|\\d{8,14}-[A-Za-z0-9]{18,26})',
    minEntropy: 3,
  }),
  tokenRule({
    id: 'slack-user-token',
    kind: 'slack_token',
    keywords: ['xoxp-', 'xoxe-'],
    body: 'xox[pe](?:-\\d{10,13}){3}-[A-Za-z0-9-]{28,34}',
    minEntropy: 3,
  }),
  tokenRule({
    id: 'slack-legacy-token',
    kind: 'slack_token',
    keywords: ['xoxo-', 'xoxs-'],
    body: 'xox[os]-\\d+-\\d+-\\d+-[a-fA-F\\d]+',
    minEntropy: 2.5,
  }),
  tokenRule({
    id: 'slack-legacy-workspace-token',
    kind: 'slack_token',
    keywords: ['xoxa-', 'xoxr-'],
    body: 'xox[ar]-(?:\\d-)?[0-9A-Za-z][0-9A-Za-z-]{7,100}',
    minEntropy: 2,
  }),
  tokenRule({
    id: 'slack-app-token',
    kind: 'slack_token',
    keywords: ['xapp-'],
    body: 'xapp-\\d-[A-Z0-9]+-\\d+-[a-z0-9]+',
    ignoreCase: true,
    minEntropy: 3,
  }),
  tokenRule({
    id: 'slack-config-token',
    kind: 'slack_token',
    keywords: ['xoxe.xox', 'xoxe-'],
    body: 'xoxe\\.xox[bp]-\\d-[A-Za-z0-9]{163,166}|xoxe-\\d-[A-Za-z0-9]{146}',
    minEntropy: 3,
  }),
  patternRule({
    id: 'slack-webhook-url',
    kind: 'slack_webhook',
    keywords: ['hooks.slack.com'],
    pattern:
      '(?:https?://)?hooks\\.slack\\.com/(?:services|workflows|triggers)/(?<secret>[A-Za-z0-9+/]{43,56})',
    minEntropy: 3,
    priority: 40,
  }),
  // Discord bot tokens: base64(user id) . timestamp . HMAC.
  tokenRule({
    id: 'discord-bot-token',
    kind: 'discord_token',
    keywords: ['.'],
    body: '[MNO][A-Za-z0-9]{23,27}\\.[\\w-]{6}\\.[\\w-]{27,38}',
    // Keywords common in prose; the token is a run of 59+ token characters.
    run: { chars: TOKEN_RUN_CHARS, min: 59 },
    minEntropy: 4,
    validate: (secret) =>
      /^[MNO][A-Za-z\d]{23,27}\./.test(secret) && /\d/.test(secret) ? { score: 0.85 } : false,
  }),
  patternRule({
    id: 'discord-webhook-url',
    kind: 'discord_token',
    keywords: ['discord'],
    pattern:
      'https://(?:ptb\\.|canary\\.)?discord(?:app)?\\.com/api/webhooks/\\d{17,20}/(?<secret>[A-Za-z0-9_-]{60,68})',
    minEntropy: 3.5,
    priority: 40,
  }),
  keyedRule({
    id: 'discord-client-secret',
    kind: 'discord_token',
    keywords: ['discord'],
    names: 'discord',
    value: '[a-f0-9]{64}|[A-Za-z0-9_-]{32}',
    minEntropy: 3,
  }),
  // Telegram bot tokens: numeric bot id, colon, 35 characters starting with AA. The Bot API puts them
  // right after "bot" in its URLs (api.telegram.org/bot<token>/sendMessage).
  patternRule({
    id: 'telegram-bot-token',
    kind: 'telegram_bot_token',
    keywords: [':aa'],
    pattern: '(?:(?<![A-Za-z0-9_-])|(?<=bot))(?<secret>\\d{8,10}:AA[A-Za-z0-9_-]{33})(?![A-Za-z0-9_-])',
    minEntropy: 3.5,
    score: 0.95,
    priority: 40,
  }),
  keyedRule({
    id: 'telegram-bot-token-assignment',
    kind: 'telegram_bot_token',
    keywords: ['telegr'],
    names: 'telegr',
    value: '\\d{5,16}:A[A-Za-z0-9_-]{34}',
    minEntropy: 3,
  }),
  patternRule({
    id: 'microsoft-teams-webhook',
    kind: 'teams_webhook',
    keywords: ['webhook.office.com', 'incomingwebhook'],
    pattern:
      'https://[a-z0-9-]+\\.webhook\\.office\\.com/webhookb2/[a-z0-9-]{36}@[a-z0-9-]{36}/IncomingWebhook/(?<secret>[a-z0-9]{32})/[a-z0-9-]{36}',
    flags: 'i',
    priority: 40,
  }),
  keyedRule({
    id: 'chat-service-token',
    kind: 'saas_api_key',
    keywords: ['mattermost', 'gitter', 'twitch', 'sendbird', 'messagebird', 'message_bird', 'message-bird'],
    names: 'mattermost|gitter|twitch|sendbird|message[_-]?bird',
    value:
      '[A-Za-z0-9]{26}|[A-Za-z0-9_-]{40}|[A-Za-z0-9]{30}|[A-Za-z0-9]{25}|[a-f0-9]{40}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}',
    minEntropy: 3,
  }),
]
