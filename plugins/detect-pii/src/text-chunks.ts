/**
 * Splits a long text into pieces of about `size` characters, cut at a line
 * break or a space near the limit so a value is rarely split in two. Returns
 * [start, end) offsets.
 */
export function splitChunks(text: string, size: number): [number, number][] {
  const chunks: [number, number][] = []
  let start = 0
  while (start < text.length) {
    let end = Math.min(text.length, start + size)
    if (end < text.length) {
      const window = text.slice(end - Math.min(2048, size >> 2), end)
      const newline = window.lastIndexOf('\n')
      const space = window.lastIndexOf(' ')
      const cut = newline >= 0 ? newline : space
      if (cut >= 0) end = end - window.length + cut + 1
    }
    chunks.push([start, end])
    start = end
  }
  return chunks
}
