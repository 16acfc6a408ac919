package bench

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// The floor's nodes are as large as ost's, so that its cache behaviour is
// ost's.
func TestFloorNodeSize(t *testing.T) {
	require.Equal(t, 32, int(unsafe.Sizeof(floorNode{})))
}
