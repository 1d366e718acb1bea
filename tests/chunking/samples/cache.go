package cache

import (
	"sync"
	"time"
)

// Entry is one cached value with its expiry.
type Entry struct {
	Value   []byte
	Expires time.Time
}

// Cache is a map of entries safe for concurrent use.
type Cache struct {
	mu      sync.RWMutex
	entries map[string]Entry
	ttl     time.Duration
}

// New returns an empty cache whose entries live for ttl.
func New(ttl time.Duration) *Cache {
	return &Cache{entries: make(map[string]Entry), ttl: ttl}
}

// Get returns the value under key unless it has expired.
func (c *Cache) Get(key string) ([]byte, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	entry, ok := c.entries[key]
	if !ok || time.Now().After(entry.Expires) {
		return nil, false
	}
	return entry.Value, true
}

// Set stores value under key for the cache's ttl.
func (c *Cache) Set(key string, value []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[key] = Entry{Value: value, Expires: time.Now().Add(c.ttl)}
}
