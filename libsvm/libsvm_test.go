package libsvm_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted/libsvm"
)

// tiny is the content of testdata/tiny.txt.bz2 (made with the bzip2 command).
const tiny = "2 1:0.5 3:-1\n1 2:2e-1\n\n# comment\n2 1:1 2:1 3:1 # trailing\n"

func checkTiny(t *testing.T, d *libsvm.Dataset) {
	t.Helper()
	require.Equal(t, 3, d.Len())
	require.Equal(t, 3, d.Dim())
	require.Equal(t, []float64{1, -1, 1}, d.Labels)
	require.Equal(t, []int{0, 2, 3, 6}, d.Ptr)
	idx, val := d.Row(0)
	require.Equal(t, []int32{0, 2}, idx)
	require.Equal(t, []float64{0.5, -1}, val)
	idx, val = d.Row(1)
	require.Equal(t, []int32{1}, idx)
	require.Equal(t, []float64{0.2}, val)
	require.Equal(t, 6, d.NNZ())
}

func TestReadPlain(t *testing.T) {
	d, err := libsvm.Read(strings.NewReader(tiny))
	require.NoError(t, err)
	checkTiny(t, d)
}

func TestReadGzip(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write([]byte(tiny))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	d, err := libsvm.Read(&buf)
	require.NoError(t, err)
	checkTiny(t, d)
}

func TestReadBzip2(t *testing.T) {
	d, err := libsvm.ReadFile("testdata/tiny.txt.bz2")
	require.NoError(t, err)
	checkTiny(t, d)
}

func TestReadEmpty(t *testing.T) {
	for _, s := range []string{"", "\n\n", "# only a comment\n"} {
		d, err := libsvm.Read(strings.NewReader(s))
		require.NoError(t, err, "%q", s)
		require.Equal(t, 0, d.Len())
	}
}

func TestLabelSpellings(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"1", "2"}, {"0", "1"}, {"-1", "+1"}, {"-1.0", "1.0"}, {"-1", "1"},
	} {
		// The larger value first, to check the mapping does not follow order.
		s := c.b + " 1:1\n" + c.a + " 2:1\n" + c.a + " 1:2\n"
		d, err := libsvm.Read(strings.NewReader(s))
		require.NoError(t, err, "%v", c)
		require.Equal(t, []float64{1, -1, -1}, d.Labels, "%v", c)
	}
}

func TestLabelSingleClass(t *testing.T) {
	d, err := libsvm.Read(strings.NewReader("0 1:1\n0 2:1\n"))
	require.NoError(t, err)
	require.Equal(t, []float64{-1, -1}, d.Labels)
	d, err = libsvm.Read(strings.NewReader("2 1:1\n"))
	require.NoError(t, err)
	require.Equal(t, []float64{1}, d.Labels)
}

func TestReadRawKeepsLabels(t *testing.T) {
	d, err := libsvm.ReadRaw(strings.NewReader("3.5 1:1\n-2 1:1\n7 1:1\n"))
	require.NoError(t, err)
	require.Equal(t, []float64{3.5, -2, 7}, d.Labels)
}

func TestBadLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		line string
	}{
		{"1 1:1\nx 1:1\n", "line 2:"},
		{"1 1:1\n\n1 1\n", "line 3:"},
		{"1 0:1\n", "line 1:"},     // indices are 1-based
		{"1 2:1 2:3\n", "line 1:"}, // repeated index
		{"1 3:1 2:3\n", "line 1:"}, // decreasing index
		{"1 a:1\n", "line 1:"},     // non-integer index
		{"1 1:z\n", "line 1:"},     // bad value
		{"1 1:NaN\n", "line 1:"},   // non-finite value
		{"1 1:1\n1 1:inf\n", "line 2:"},
		{"nan 1:1\n", "line 1:"},
	} {
		_, err := libsvm.Read(strings.NewReader(c.in))
		require.Error(t, err, "%q", c.in)
		require.ErrorIs(t, err, libsvm.ErrFormat, "%q", c.in)
		require.Contains(t, err.Error(), c.line, "%q", c.in)
	}
}

func TestThreeLabelsRejected(t *testing.T) {
	_, err := libsvm.Read(strings.NewReader("1 1:1\n2 1:1\n3 1:1\n"))
	require.ErrorIs(t, err, libsvm.ErrFormat)
}

func TestTruncatedGzip(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte(strings.Repeat(tiny, 50)))
	require.NoError(t, zw.Close())
	_, err := libsvm.Read(bytes.NewReader(buf.Bytes()[:buf.Len()/2]))
	require.Error(t, err)
}

func TestReadFileMissing(t *testing.T) {
	_, err := libsvm.ReadFile("testdata/does-not-exist")
	require.True(t, errors.Is(err, os.ErrNotExist))
}

func TestQidSkipped(t *testing.T) {
	d, err := libsvm.ReadRaw(strings.NewReader("1 qid:3 1:1 4:2\n"))
	require.NoError(t, err)
	idx, _ := d.Row(0)
	require.Equal(t, []int32{0, 3}, idx)
}

func TestNormalizeRows(t *testing.T) {
	d, err := libsvm.Read(strings.NewReader("1 1:3 2:4\n0 3:0\n"))
	require.NoError(t, err)
	d.NormalizeRows()
	_, v := d.Row(0)
	require.InDeltaSlice(t, []float64{0.6, 0.8}, v, 1e-15)
	_, v = d.Row(1)
	require.Equal(t, []float64{0}, v) // a zero row stays zero
}

func TestSyntheticDeterministic(t *testing.T) {
	a := libsvm.Synthetic(7, 1000, 10)
	b := libsvm.Synthetic(7, 1000, 10)
	c := libsvm.Synthetic(8, 1000, 10)
	require.Equal(t, a, b)
	require.NotEqual(t, a.Val, c.Val)
	require.Equal(t, 1000, a.Len())
	require.Equal(t, 10, a.Dim())
	require.Equal(t, 10000, a.NNZ())
	// Features are standard normal: mean near 0, variance near 1 (10000
	// draws: the standard error of the mean is 0.01, of the variance ≈ 0.014).
	var s, s2 float64
	for _, v := range a.Val {
		s += v
		s2 += v * v
	}
	m := s / 1e4
	require.InDelta(t, 0, m, 0.05)
	require.InDelta(t, 1, s2/1e4-m*m, 0.07)
	for _, y := range a.Labels {
		require.False(t, math.IsNaN(y) || math.IsInf(y, 0))
	}
}

// Each refusal says what is wrong with the line, not only where.
func TestBadLineMessages(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1 99999999999:1\n", `line 1: libsvm: bad format: index "99999999999" is too large: at most 2147483647`},
		{"1 0:1\n", `index "0" is below 1`},
		{"1 3:1 2:1\n", `index "2" is not above the previous one, 3`},
		{"1 a:1\n", `index "a" is not an integer`},
		{"1 1:z\n", `value "z" is not a finite number`},
		{"x 1:1\n", `label "x" is not a finite number`},
		{"1 1:1\n1 " + strings.Repeat("y", 300) + "\n", `line 2: libsvm: bad format: "yyyyyyyyyyyyyyyyyyyyyyyy"… (300 bytes) is not index:value`},
	} {
		_, err := libsvm.Read(strings.NewReader(c.in))
		require.ErrorIs(t, err, libsvm.ErrFormat, "%q", c.in)
		require.ErrorContains(t, err, c.want, "%q", c.in)
	}
}

// A binary file is refused as not text, with a short quote of its first
// bytes, not hundreds of raw bytes.
func TestBinaryFileQuotedShort(t *testing.T) {
	bin := []byte("\x7fELF\x02\x01\x01\x00")
	for i := range 400 {
		bin = append(bin, byte(i*37))
	}
	_, err := libsvm.Read(bytes.NewReader(bin))
	require.ErrorIs(t, err, libsvm.ErrFormat)
	require.ErrorContains(t, err, "line 1: libsvm: bad format: not text (a binary file?): starts \"\\x7fELF")
	require.Less(t, len(err.Error()), 200, "a short message: %s", err)
	// Text with accents is text.
	_, err = libsvm.Read(strings.NewReader("1 1:1 # café\n-1 2:1\n"))
	require.NoError(t, err)
}

// A truncated compressed file says so, with the byte of the file where the
// data stopped and the last whole line read.
func TestTruncatedMessages(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte(strings.Repeat(tiny, 500)))
	require.NoError(t, zw.Close())
	cut := buf.Len() / 2
	_, err := libsvm.Read(bytes.NewReader(buf.Bytes()[:cut]))
	require.ErrorIs(t, err, libsvm.ErrFormat)
	require.Regexp(t, `the gzip data ends early, at byte \d+ of the file, after line [1-9]\d*: truncated\?`, err.Error())
	require.Contains(t, err.Error(), fmt.Sprintf("at byte %d of", cut))

	// Wherever it is cut, mid-line included: never a parse error of the
	// partial last line.
	for cut := 20; cut < buf.Len()-8; cut += 13 {
		_, err := libsvm.Read(bytes.NewReader(buf.Bytes()[:cut]))
		require.ErrorContains(t, err, "the gzip data ends early", "cut at %d", cut)
	}

	_, err = libsvm.Read(bytes.NewReader(buf.Bytes()[:5]))
	require.ErrorContains(t, err, "the gzip data ends early, within its header")

	bz, err := os.ReadFile("testdata/tiny.txt.bz2")
	require.NoError(t, err)
	_, err = libsvm.Read(bytes.NewReader(bz[:len(bz)-10]))
	require.ErrorContains(t, err, "the bzip2 data ends early")
}

// TextLike's labels are −1 and +1, and neither dominates: over 1,012 rows
// of an rcv1 shape scaled down 20 times, each label is on between a quarter
// and three quarters of the rows, for each of three seeds (seeds 1 to 8
// give 423 to 575 positive rows, 42 to 57 %).
func TestTextLikeLabelsBalanced(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		ds := libsvm.TextLike(seed, libsvm.RCV1.Scaled(20))
		require.Equal(t, 1012, ds.Len())
		pos := 0
		for i, y := range ds.Labels {
			require.True(t, y == 1 || y == -1, "seed %d, row %d: label %v", seed, i, y)
			if y == 1 {
				pos++
			}
		}
		require.GreaterOrEqual(t, pos, 1012/4, "seed %d: %d positive of 1012", seed, pos)
		require.LessOrEqual(t, pos, 3*1012/4, "seed %d: %d positive of 1012", seed, pos)
	}
}
