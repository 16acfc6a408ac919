package samplertest

import "runtime"

// RaceEnabled reports whether the race detector is on: it adds heap of its
// own, so a test that holds a sampler's Bytes against the heap skips.
const RaceEnabled = raceEnabled

// HeldBy returns the heap that dropping *p frees, and drops it: the heap in
// use after two collections with *p held, less the heap in use after two
// more once *p is nil. The difference is what *p alone holds when nothing
// else refers to it or to what it points to, and nothing else allocates
// meanwhile; if something else allocated, it can be below what *p holds,
// and negative. A backend holds its Bytes against it, since its memory
// target rests on Bytes.
func HeldBy[T any](p **T) int64 {
	var held, freed runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&held)
	*p = nil
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&freed)
	// Signed: a heap that grew meanwhile reads as a negative difference,
	// not as one wrapped to near 2^64.
	return int64(held.HeapAlloc) - int64(freed.HeapAlloc)
}
