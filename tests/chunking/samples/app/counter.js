import { defineStore } from 'pinia'
import { api } from '../api'

export const useCartStore = defineStore('cart', {
  state: () => ({ items: [], coupon: null }),
  getters: {
    total: (state) => state.items.reduce((sum, item) => sum + item.price * item.quantity, 0),
  },
  actions: {
    async checkout () {
      const order = await api.post('/orders', { items: this.items, coupon: this.coupon })
      this.items = []
      return order
    },
    addItem (product, quantity = 1) {
      const line = this.items.find(item => item.id === product.id)
      if (line) line.quantity += quantity
      else this.items.push({ ...product, quantity })
    },
  },
})
