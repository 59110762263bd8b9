import { type Gazetteer, loadGazetteer } from './entities/gazetteer.js'

let loading: Promise<Gazetteer> | undefined
let loaded: Gazetteer | undefined

/**
 * Loads the gazetteer once per process, whatever the number of pipelines:
 * the data is the same for every instance.
 */
export function sharedGazetteer(): Promise<Gazetteer> {
  loading ??= loadGazetteer().then((g) => {
    loaded = g
    return g
  })
  return loading
}

/** The gazetteer if it finished loading, else undefined. */
export function loadedGazetteer(): Gazetteer | undefined {
  return loaded
}
