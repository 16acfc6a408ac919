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
