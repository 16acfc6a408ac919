package samplertest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// HeldBy measures what a value alone holds, within what the runtime and
// the test framework allocate and free meanwhile (a few bytes): a struct
// with an array of 1 MiB, and nothing once the value is dropped (a second
// call, on the nil pointer, frees nothing more).
func TestHeldByMeasuresWhatIsDropped(t *testing.T) {
	if RaceEnabled {
		t.Skip("the race detector adds heap of its own")
	}
	type holder struct{ b []byte }
	const size = 1 << 20
	h := &holder{b: make([]byte, size)}
	h.b[size-1] = 1
	got := HeldBy(&h)
	require.Nil(t, h, "HeldBy drops what it measures")
	require.InDelta(t, size, got, 64<<10, "the struct and the array")
	require.InDelta(t, 0, HeldBy(&h), 64<<10, "a dropped value holds nothing")
}
