//go:build race

package levels

// raceEnabled: the race detector makes sync.Pool drop items at random, so
// pooled scratch memory allocates.
const raceEnabled = true
