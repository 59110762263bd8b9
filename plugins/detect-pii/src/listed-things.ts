import type { Detection } from './pii-types.js'

/**
 * Items of a list of things are no people (0.6.8): "Rank the following universities.\n\nPrinceton, Stanford, UW,
 * Cornell", "Write the adjectives that represent the given religions.\n\nAtheism:\nChristianity:\nIslam:", "Name
 * three rivers: Jordan, Severn, Shannon". The tagger reads such a word that is also a given name ("Stanford",
 * "Cornell", "Islam", "Jordan") as a person; the list's heading names what its items are.
 *
 * A PERSON, ORGANIZATION or LOCATION finding is dropped when it is a whole item of a list — a line of three or more items
 * separated by commas or semicolons (after a colon or alone on its line), or a line of its own (after a bullet or
 * number, before a colon) beside another such short line — and the text before the list, up to
 * {@link HEADING_REACH} characters, names a kind of thing ({@link THING_KINDS}: universities, religions,
 * countries, teams, brands, books, …) and no kind of person, relation or errand ({@link PEOPLE_WORDS}: people,
 * names, employees, students, authors, friend, send, invite, …). "Invite the following people: Anna Berg, Peter
 * Lindqvist, Tom Hanks" and "Send the books to Anna Berg, Peter Lindqvist and Tom Hanks" keep their names.
 */

/** How far before the list (UTF-16 units) its heading may start. */
const HEADING_REACH = 240
/** Kinds of things a list names (plural, English; a few singular collectives). */
const THING_KINDS = new Set([
  ...['universities', 'colleges', 'schools', 'religions', 'faiths', 'countries', 'nations', 'states'],
  ...['cities', 'towns', 'capitals', 'places', 'regions', 'provinces', 'continents', 'destinations'],
  ...['companies', 'brands', 'products', 'teams', 'clubs', 'leagues', 'languages', 'books', 'novels'],
  ...['movies', 'films', 'shows', 'series', 'songs', 'albums', 'bands', 'games', 'apps', 'cars', 'models'],
  ...[
    'foods',
    'dishes',
    'drinks',
    'cocktails',
    'wines',
    'beers',
    'fruits',
    'vegetables',
    'animals',
    'breeds',
  ],
  ...['species', 'plants', 'flowers', 'trees', 'planets', 'stars', 'constellations', 'rivers', 'mountains'],
  ...['lakes', 'islands', 'oceans', 'seas', 'deserts', 'diseases', 'drugs', 'medications', 'elements'],
  ...['words', 'terms', 'nouns', 'adjectives', 'items', 'categories', 'genres', 'websites', 'platforms'],
  ...['tools', 'frameworks', 'libraries', 'hurricanes', 'storms', 'ships', 'airlines', 'airports', 'hotels'],
  ...['restaurants', 'stores', 'shops', 'museums', 'holidays', 'festivals', 'sports', 'instruments'],
  ...['currencies', 'empires', 'dynasties', 'wars', 'battles', 'ideologies', 'philosophies', 'cuisines'],
  ...['stadiums', 'parks', 'monuments', 'landmarks', 'galaxies', 'minerals', 'gems', 'colors', 'colours'],
])

/** Kinds of people, relations and errands: a list after them may name people. */
const PEOPLE_WORDS = new Set([
  ...['people', 'persons', 'person', 'names', 'employees', 'staff', 'students', 'pupils', 'customers'],
  ...['clients', 'users', 'members', 'players', 'athletes', 'authors', 'artists', 'actors', 'actresses'],
  ...['singers', 'musicians', 'writers', 'poets', 'painters', 'colleagues', 'friends', 'friend', 'contacts'],
  ...['candidates', 'applicants', 'patients', 'guests', 'attendees', 'participants', 'speakers', 'leaders'],
  ...[
    'politicians',
    'presidents',
    'scientists',
    'inventors',
    'characters',
    'founders',
    'celebrities',
    'kids',
  ],
  ...['children', 'family', 'relatives', 'team-mates', 'teammates', 'coaches', 'managers', 'owners', 'who'],
  ...['whom', 'whose', 'figures', 'individuals', 'men', 'women', 'guys', 'volunteers', 'winners', 'heroes'],
  ...['send', 'forward', 'invite', 'email', 'e-mail', 'call', 'message', 'remind', 'notify', 'cc'],
])

/** What may follow an item: a separator, a colon or full stop, the line's end, "and"/"or"/"&" and the next item. */
const ITEM_END = /^(?:[ \t]*(?:[,;:.]|\r?\n|$)|[ \t]+(?:and|or|&)[ \t])/u
/** A list's separators within a line. */
const SEPARATOR = /[ \t]*[,;][ \t]*(?:(?:and|or|&)[ \t]+)?|[ \t]+(?:and|or|&)[ \t]+/u
/** A bullet or number opening a list line. */
const BULLET = /^[ \t]*(?:[-*•][ \t]*|\p{Nd}{1,2}[.)][ \t]*)?/u
/** An item: up to four words, the first capitalised, and an optional colon or full stop after it. */
const ITEM = /^\p{Lu}[\p{L}\p{M}\p{Nd}'’&.-]*(?: [\p{L}\p{M}\p{Nd}'’&.-]+){0,3}[:.]?$/u

/** The detections without the name items of a list of things; `found` when none. */
export function withoutListedThings(text: string, found: Detection[]): Detection[] {
  let listed: Set<Detection> | undefined
  for (const d of found) {
    if (d.type !== 'PERSON' && d.type !== 'ORGANIZATION' && d.type !== 'LOCATION') continue
    const listStart = listAround(text, d)
    if (listStart < 0 || !headingNamesThings(text, listStart)) continue
    listed ??= new Set()
    listed.add(d)
  }
  return listed ? found.filter((d) => !listed.has(d)) : found
}

/**
 * The offset where the heading of the list holding `d` as a whole item ends (the start of `d`'s line, or of the text
 * after the colon of an inline list), or -1 when `d` is no list item.
 */
function listAround(text: string, d: Detection): number {
  // Cheap test first: an item ends its line or stands before a separator, colon or full stop.
  if (!ITEM_END.test(text.slice(d.end, d.end + 5))) return -1
  const lineStart = text.lastIndexOf('\n', d.start - 1) + 1
  let lineEnd = text.indexOf('\n', d.end)
  if (lineEnd < 0) lineEnd = text.length
  const line = text.slice(lineStart, lineEnd)
  const value = text.slice(d.start, d.end)
  // An inline list: the line (or its part after the last colon before the item) is three or more items.
  const colon = line.lastIndexOf(':', d.start - lineStart)
  const partStart = colon >= 0 ? colon + 1 : 0
  const part = line.slice(partStart).replace(/[.!?]?[ \t]*$/u, '')
  const items = part.replace(BULLET, '').split(SEPARATOR)
  if (items.length >= 3 && items.every((item) => ITEM.test(item)) && items.includes(value))
    return lineStart + partStart
  // A line of its own, beside another short item line.
  const item = line.replace(BULLET, '').replace(/[ \t]*[:.]?[ \t]*$/u, '')
  if (item !== value) return -1
  const previousStart = lineStart > 0 ? text.lastIndexOf('\n', lineStart - 2) + 1 : -1
  const previous = previousStart >= 0 ? text.slice(previousStart, lineStart - 1) : ''
  let nextEnd = lineEnd < text.length ? text.indexOf('\n', lineEnd + 1) : -1
  if (nextEnd < 0) nextEnd = text.length
  const next = lineEnd < text.length ? text.slice(lineEnd + 1, nextEnd) : ''
  const itemLine = (l: string) => ITEM.test(l.replace(BULLET, '').trimEnd())
  // Earlier items in the heading's reach are capitalised words: no kind of person.
  return itemLine(previous) || itemLine(next) ? lineStart : -1
}

/** True when the text before the list names a kind of thing and no kind of person, relation or errand. */
function headingNamesThings(text: string, listStart: number): boolean {
  const heading = text.slice(Math.max(0, listStart - HEADING_REACH), listStart).toLowerCase()
  let things = false
  for (const word of heading.split(/[^\p{L}\p{M}-]+/u)) {
    if (PEOPLE_WORDS.has(word)) return false
    if (THING_KINDS.has(word)) things = true
  }
  return things
}
