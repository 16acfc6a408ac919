package libsvm

import (
	"bytes"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// text writes ds in the LIBSVM format, values in the shortest form that
// parses back to the same float64.
func text(ds *Dataset) []byte {
	var b []byte
	for i := range ds.Len() {
		b = strconv.AppendFloat(b, ds.Labels[i], 'g', -1, 64)
		idx, val := ds.Row(i)
		for k, j := range idx {
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(j)+1, 10)
			b = append(b, ':')
			b = strconv.AppendFloat(b, val[k], 'g', -1, 64)
		}
		b = append(b, '\n')
	}
	return b
}

// Reading a generated set back from its text gives it bit for bit, in
// slices of the exact length, whatever the chunk size: chunks of 1 value
// (every row its own chunk or more), of 7 (rows straddle the boundaries)
// and the default.
func TestReadChunksRoundTrip(t *testing.T) {
	ds := TextLike(4, Shape{N: 300, D: 5000, RowNNZ: 20})
	ds.D = 0
	for _, j := range ds.Idx {
		ds.D = max(ds.D, int(j)+1)
	}
	src := text(ds)
	defer func(n int) { chunkLen = n }(chunkLen)
	for _, n := range []int{1, 7, chunkLen} {
		chunkLen = n
		got, err := ReadRaw(bytes.NewReader(src))
		require.NoError(t, err)
		require.Equal(t, ds.Labels, got.Labels, "chunks of %d", n)
		require.Equal(t, ds.Ptr, got.Ptr, "chunks of %d", n)
		require.Equal(t, ds.Idx, got.Idx, "chunks of %d", n)
		require.Equal(t, ds.Val, got.Val, "chunks of %d", n)
		require.Equal(t, ds.D, got.D)
		require.Equal(t, len(got.Idx), cap(got.Idx), "exact length")
		require.Equal(t, len(got.Val), cap(got.Val), "exact length")
	}
}

// A bad line after some chunks is still reported with its number, and
// nothing is returned.
func TestReadChunksBadLine(t *testing.T) {
	defer func(n int) { chunkLen = n }(chunkLen)
	chunkLen = 3
	ds, err := ReadRaw(bytes.NewReader([]byte("1 1:1 2:2\n-1 1:1 2:2 3:3\n1 1:1\n1 2:x\n")))
	require.ErrorIs(t, err, ErrFormat)
	require.ErrorContains(t, err, "line 4")
	require.Nil(t, ds)
}

// BenchmarkRead reads an rcv1-shaped set of 10⁶ values from memory and
// reports the time and the bytes allocated per value.
func BenchmarkRead(b *testing.B) {
	src := text(TextLike(1, Shape{N: 13500, D: 47236, RowNNZ: 74}))
	var nnz int
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		ds, err := Read(bytes.NewReader(src))
		if err != nil {
			b.Fatal(err)
		}
		nnz = ds.NNZ()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nnz), "ns/value")
}

// The largest index an int32 holds, 2³¹ − 1, is read (Dim is then
// 2³¹ − 1, and the row costs what its values cost); one more cannot be
// represented and is an ErrFormat naming the line.
func TestReadIndexLimit(t *testing.T) {
	ds, err := Read(bytes.NewReader([]byte("1 1:1 2147483647:0.5\n-1 3:1\n")))
	require.NoError(t, err)
	require.Equal(t, 2147483647, ds.Dim())
	idx, val := ds.Row(0)
	require.Equal(t, []int32{0, 2147483646}, idx)
	require.Equal(t, []float64{1, 0.5}, val)
	_, err = Read(bytes.NewReader([]byte("1 1:1\n-1 2147483648:1\n")))
	require.ErrorIs(t, err, ErrFormat)
	require.ErrorContains(t, err, "line 2")
}

// Property: the storage ReadRaw allocates for the values grows with their
// number, not with the number of lines: a new chunk starts only when the
// current one may not hold the next line. 2,000 lines of 2 values in chunks
// of 1,024 values fill 4 chunks of 12 KB, copied once at the end: with the
// reader's two 64 KB buffers and the labels and offsets, 350 KB in all
// (the test allows 2 MB); a chunk a line would be 2,000 chunks, 24 MB.
func TestReadChunksPerValues(t *testing.T) {
	defer func(n int) { chunkLen = n }(chunkLen)
	chunkLen = 1024
	src := bytes.Repeat([]byte("1 1:1 2:1\n"), 2000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ds, err := ReadRaw(bytes.NewReader(src))
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Equal(t, 2000, ds.Len())
	require.Equal(t, 4000, ds.NNZ())
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(2<<20), "bytes allocated")
}
