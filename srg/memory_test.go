package srg_test

import (
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// The estimate grows like d² up to DenseMaxDim and like d above it: a
// 300-row set with a feature index 2³¹ − 1 needs over 100 GB (vectors of
// 17 GB), the rcv1 shape under 50 MB, and no d×d term appears above the
// switch (news20's d = 1,355,191 would need 14.7 TB with one).
func TestDatasetMemory(t *testing.T) {
	huge := srg.DatasetMemory(300, math.MaxInt32, 10, 2)
	require.Greater(t, huge, int64(100e9))
	rcv1 := srg.DatasetMemory(20242, 47236, 10, 2)
	require.Less(t, rcv1, int64(50e6))
	require.Greater(t, rcv1, int64(8*47236*10), "at least every run's final x")
	news20 := srg.DatasetMemory(19996, 1355191, 10, 2)
	require.Less(t, news20, int64(1e9))
	dense := srg.DatasetMemory(1000, srg.DenseMaxDim, 10, 2)
	require.Greater(t, dense, int64(3*8*srg.DenseMaxDim*srg.DenseMaxDim), "the dense Hessian and its factor")
	require.Equal(t, int64(math.MaxInt64), srg.DatasetMemory(math.MaxInt, math.MaxInt, math.MaxInt, math.MaxInt))
}

// The estimate covers what Dataset holds at its peak: on a news20-shaped
// set (a tenth of its n and d) the heap in use, sampled every 5 ms while
// Dataset runs, stays below DatasetMemory.
func TestDatasetMemoryCoversDataset(t *testing.T) {
	ds := libsvm.TextLike(1, libsvm.News20.Scaled(10))
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base, peak := m.HeapInuse, m.HeapInuse
	done, stopped := make(chan bool), make(chan bool)
	go func() {
		defer close(stopped)
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
		}
	}()
	_, err := srg.Dataset(srg.DatasetConfig{Name: "news20", Data: ds, Runs: 3, Epochs: 1, Workers: 2, PaperOnly: true})
	close(done)
	<-stopped
	require.NoError(t, err)
	est := srg.DatasetMemory(ds.Len(), ds.Dim(), 3, 2)
	t.Logf("heap in use %d MB, estimated %d MB", (peak-base)>>20, est>>20)
	require.Less(t, int64(peak-base), est)
}

// DatasetMemory is three times what lives throughout (row norms and x*,
// 8(n + d) bytes) plus the largest stage, each stage counted as its doc
// lists it, 8 bytes a float64: at shapes where each stage is the largest,
// the estimate is the sum worked by hand.
func TestDatasetMemoryStages(t *testing.T) {
	for _, tc := range []struct {
		name                string
		n, d, runs, workers int
		want                int64
	}{
		// L: Gram matrix, EigenSym's copy and workspace, 8(3d² + 2n) =
		// 2,208,000, above Solve's 8(3d² + 5d + n) = 2,196,000.
		{"L, dense", 3000, 300, 1, 1, 3 * (26400 + 2208000)},
		// Solve: 8(3d² + 5d + n) = 2,172,080; L 2,160,160.
		{"Solve, dense", 10, 300, 1, 1, 3 * (2480 + 2172080)},
		// Newton-CG: 8(12d + n) = 9,608,000; the run 8·9d + 64n plus the
		// kept final x 8d is 8,064,000.
		{"Solve, sparse", 1000, 100000, 1, 1, 3 * (808000 + 9608000)},
		// Four runs in flight: 4(8·9d + 64n) + 8d = 258,960.
		{"runs in flight", 1000, 10, 1, 4, 3 * (8080 + 258960)},
		// A hundred final x kept: 8·9d + 64n + 100·8d = 872,640.
		{"runs kept", 10, 1000, 100, 1, 3 * (8080 + 872640)},
		// Variances: 8·4n + 48n = 80,000; one run 64,800.
		{"variances", 1000, 10, 1, 1, 3 * (8080 + 80000)},
	} {
		require.Equal(t, tc.want, srg.DatasetMemory(tc.n, tc.d, tc.runs, tc.workers), tc.name)
	}
}
