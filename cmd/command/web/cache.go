package web

import "container/list"

// pageCache holds built pages, least recently used first out, within a
// number of pages and a number of bytes (keys and pages): every address
// a page of anywhere may send to 127.0.0.1 is a page td serve could keep,
// so what it keeps is bounded whatever is asked for.
type pageCache struct {
	maxEntries int
	maxBytes   int64
	bytes      int64
	order      *list.List // front: the most recently used
	byKey      map[string]*list.Element
}

type cached struct {
	key  string
	body []byte
}

func newPageCache(maxEntries int, maxBytes int64) *pageCache {
	return &pageCache{maxEntries: maxEntries, maxBytes: maxBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

// get returns the page kept under key, marking it the most recently used.
func (c *pageCache) get(key string) ([]byte, bool) {
	e, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cached).body, true
}

// add keeps body under key, the most recently used, dropping the least
// recently used pages until the bounds hold. A page larger than the whole
// byte bound is not kept.
func (c *pageCache) add(key string, body []byte) {
	c.remove(key)
	if c.maxEntries <= 0 || int64(len(key)+len(body)) > c.maxBytes {
		return
	}
	c.byKey[key] = c.order.PushFront(&cached{key: key, body: body})
	c.bytes += int64(len(key) + len(body))
	for c.order.Len() > c.maxEntries || c.bytes > c.maxBytes {
		c.remove(c.order.Back().Value.(*cached).key)
	}
}

func (c *pageCache) remove(key string) {
	if e, ok := c.byKey[key]; ok {
		c.order.Remove(e)
		delete(c.byKey, key)
		c.bytes -= int64(len(key) + len(e.Value.(*cached).body))
	}
}

// clear drops every page: the store they were built from changed.
func (c *pageCache) clear() {
	c.order.Init()
	clear(c.byKey)
	c.bytes = 0
}

// len and size are how many pages, of how many bytes, are kept.
func (c *pageCache) len() int    { return c.order.Len() }
func (c *pageCache) size() int64 { return c.bytes }
