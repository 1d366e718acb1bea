import { reactive } from 'vue'
import { differenceBy, orderBy } from 'lodash'
import { http } from '@/services/http'
import { cache } from '@/services/cache'
import type { Playlist, SmartPlaylistRule } from '@/types'

export const playlistStore = {
  state: reactive({
    playlists: [] as Playlist[],
  }),

  init (playlists: Playlist[]) {
    this.all = this.sort(playlists)
    this.all.forEach(playlist => this.setupSmartPlaylist(playlist))
  },

  /**
   * Set up a smart playlist: its rules are parsed into groups with unique ids.
   */
  setupSmartPlaylist: (playlist: Playlist) => {
    if (!playlist.is_smart) {
      return
    }
    playlist.rules = playlist.rules.map(group => ({ ...group, id: crypto.randomUUID() }))
  },

  async store (name: string, rules: SmartPlaylistRule[] = []) {
    const playlist = reactive(await http.post<Playlist>('playlists', { name, rules }))
    this.all.push(playlist)
    cache.remove(['playlist.songs', playlist.id])
    return playlist
  },

  sort: (playlists: Playlist[]) => orderBy(playlists, ['is_smart', 'name'], ['desc', 'asc']),
}
