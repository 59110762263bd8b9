import type { Detection } from './pii-types.js'
import { FIRST_PERSON_WORDS, privateWord } from './private-words.js'

/**
 * Teams named by their place in a report of a game are no people (0.6.8): "What was the time on the clock when
 * Carolina got the ball to their 24-yard line in the fourth quarter?", "How many points did Denver score in the
 * first half?". The tagger reads a city or state that is also a given name ("Carolina", "Denver", "Houston") as a
 * person.
 *
 * A PERSON finding is dropped when it is one capitalised word (a possessive allowed) that the gazetteer knows as a
 * city, region or country, with no title, initial, capitalised word (but a sentence's opening question or function
 * word: "When Carolina …") or player's role ("NHL player Moore") beside it, in a text with a word only games
 * of teams use ({@link GAME}: a numbered quarter, halftime, touchdown, field goal, a yard line, interception,
 * playoffs, Super Bowl, NFL, inning, …) and no first-person word ("my son Austin scored two touchdowns" keeps
 * him). The rule cannot tell a player named like a town ("Newton lost the ball in the fourth quarter") from a team:
 * such a lone name in a game report is left unmasked too.
 */

/** Words of games between teams: a numbered quarter or half, scoring and play words, leagues and finals. */
const GAME =
  /(?<![\p{L}\p{M}])(?:(?:first|second|third|fourth|1st|2nd|3rd|4th) (?:quarter|half|period|inning)|halftime|half-time|overtime|touchdowns?|field goals?|yard line|\p{Nd}+-yard|interceptions?|fumbled?|fumbles|kickoff|punts?|playoffs?|super bowl|quarterback|nfl|nba|mlb|nhl|afc|nfc|innings?|home runs?|free throws?|penalty kicks?|world series|stanley cup)(?![\p{L}\p{M}])/u

/** One capitalised word, with a possessive. */
const LONE_WORD = /^\p{Lu}\p{Ll}[\p{Ll}\p{M}-]*(?:['’]s?)?$/u
/** A title, an initial or a capitalised word right before the finding ("Mr.", "J.", "Cam"). */
const NAME_BEFORE = /(?:\p{Lu}[\p{L}\p{M}'’-]*\.?|\p{Lu}\.)[ \t]+$/u
/** A question or function word opening the sentence right before the finding ("When Carolina got the ball"). */
const OPENER =
  '(?:when|how|what|who|why|where|which|did|does|do|was|were|is|after|before|if|while|since|then|and|but|in|at|on|as|so)'
const FIRST_WORD = new RegExp(`[.!?:\\n][ \\t]*${OPENER}[ \\t]+$`, 'iu')
const FIRST_WORD_AT_START = new RegExp(`(?:^|[.!?:\\n])[ \\t]*${OPENER}[ \\t]+$`, 'iu')
/** A player's role right before the finding: "NHL player Moore", "quarterback Newton". */
const ROLE_BEFORE =
  /(?<![\p{L}\p{M}])(?:player|coach|quarterback|qb|captain|striker|pitcher|goalkeeper|goalie|keeper|forward|guard|defender|receiver|linebacker|kicker|runner|batter|catcher|midfielder|rookie|teammate)[ \t]+$/iu
/** A capitalised word right after the finding: a surname ("Denver Smith"). */
const NAME_AFTER = /^[ \t]+\p{Lu}\p{Ll}/u

/** The detections without the places read as people in a game report; `found` when none. */
export function withoutPlaceTeams(
  text: string,
  found: Detection[],
  isPlace: ((key: string) => boolean) | undefined,
): Detection[] {
  if (!isPlace) return found
  let game: boolean | undefined
  let teams: Set<Detection> | undefined
  for (const d of found) {
    if (d.type !== 'PERSON') continue
    const value = text.slice(d.start, d.end)
    if (!LONE_WORD.test(value)) continue
    if (!isPlace(value.replace(/['’]s?$/u, '').toLowerCase())) continue
    if (NAME_AFTER.test(text.slice(d.end, d.end + 3))) continue
    // Not at a sentence start: a capitalised word before it there is the sentence's first word, no name.
    const from = Math.max(0, d.start - 20)
    const before = text.slice(from, d.start)
    if (NAME_BEFORE.test(before) && !(from === 0 ? FIRST_WORD_AT_START : FIRST_WORD).test(before)) continue
    if (ROLE_BEFORE.test(before)) continue
    if (game === undefined) {
      const lower = text.toLowerCase()
      game = GAME.test(lower) && !privateWord(lower, FIRST_PERSON_WORDS)
    }
    if (!game) return found
    teams ??= new Set()
    teams.add(d)
  }
  return teams ? found.filter((d) => !teams.has(d)) : found
}
