/**
 * Order ids the way the SQL stores do (`ORDER BY id COLLATE "C"`): by the bytes of
 * their UTF-8 form, i.e. by code point. A plain `<` compares UTF-16 code units,
 * which differs for characters outside the Basic Multilingual Plane.
 */
export function compareIds(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}
