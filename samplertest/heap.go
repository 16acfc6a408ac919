package samplertest

import "runtime"

// RaceEnabled reports whether the race detector is on: it adds heap of its
// own, so a test that holds a sampler's Bytes against the heap skips.
const RaceEnabled = raceEnabled

// HeldBy returns the heap that dropping *p frees, and drops it: the heap in
// use after two collections with *p held, less the heap in use after two
// more once *p is nil. The difference is what *p alone holds when nothing
// else refers to it or to what it points to, and nothing else allocates
// meanwhile. A backend holds its Bytes against it, since its memory target
// rests on Bytes.
func HeldBy[T any](p **T) uint64 {
	var held, freed runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&held)
	*p = nil
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&freed)
	return held.HeapAlloc - freed.HeapAlloc
}
