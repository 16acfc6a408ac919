// Package libsvm reads data sets in the LIBSVM text format into sparse rows,
// and generates the synthetic regression set of the SRG paper.
//
// A LIBSVM file has one example per line: a label followed by index:value
// pairs with 1-based, strictly increasing feature indices, for example
//
//	+1 3:0.5 10:1 27:-2
//
// Read accepts the file plain or compressed with gzip or bzip2; it sniffs the
// compression from the magic bytes, not from the file name. Binary labels
// arrive in several spellings (1/2, 0/1, -1/+1, -1.0/1.0); Read maps the
// smaller of the two values in a file to −1 and the larger to +1.
//
// Rows are stored in compressed sparse row form (one slice of indices, one of
// values, and row offsets), so a row costs O(nnz) to visit and the whole set
// costs three allocations.
package libsvm

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Dataset is a set of examples with sparse feature rows and one label each.
type Dataset struct {
	// Labels holds one label per example: −1 or +1 after Read, the real
	// regression target in a set made by Synthetic.
	Labels []float64
	// Ptr holds the row offsets: row i is Idx[Ptr[i]:Ptr[i+1]] with values
	// Val[Ptr[i]:Ptr[i+1]]. len(Ptr) = Len()+1.
	Ptr []int
	// Idx holds 0-based feature indices, strictly increasing within a row.
	Idx []int32
	// Val holds the feature values matching Idx.
	Val []float64
	// D is the number of features: one more than the largest index.
	D int
}

// Len returns the number of examples.
func (d *Dataset) Len() int { return len(d.Labels) }

// Dim returns the number of features.
func (d *Dataset) Dim() int { return d.D }

// Row returns the 0-based feature indices and the values of example i.
// The slices alias the data set.
func (d *Dataset) Row(i int) ([]int32, []float64) {
	lo, hi := d.Ptr[i], d.Ptr[i+1]
	return d.Idx[lo:hi:hi], d.Val[lo:hi:hi]
}

// NNZ returns the number of stored feature values.
func (d *Dataset) NNZ() int { return len(d.Val) }

// NormalizeRows scales every non-zero row to unit Euclidean norm.
func (d *Dataset) NormalizeRows() {
	for i := range d.Len() {
		_, v := d.Row(i)
		var s float64
		for _, x := range v {
			s += x * x
		}
		if s == 0 {
			continue
		}
		inv := 1 / math.Sqrt(s)
		for j := range v {
			v[j] *= inv
		}
	}
}

// ErrFormat reports a malformed line; the error that wraps it names the line.
var ErrFormat = errors.New("libsvm: bad format")

// ReadFile reads a LIBSVM file, plain, gzip or bzip2, with Read.
func ReadFile(path string) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// Read parses a LIBSVM data set, plain or compressed with gzip or bzip2, and
// maps its two label values to −1 and +1 (see BinaryLabels). Blank lines and
// comments starting with '#' are skipped; a malformed line gives an error
// wrapping ErrFormat that names the line number.
func Read(r io.Reader) (*Dataset, error) {
	d, err := ReadRaw(r)
	if err != nil {
		return nil, err
	}
	if err := BinaryLabels(d.Labels); err != nil {
		return nil, err
	}
	return d, nil
}

// ReadRaw is Read without the label mapping: labels are kept as written.
func ReadRaw(r io.Reader) (*Dataset, error) {
	cr := &countReader{r: r}
	in, kind, err := decompress(cr)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<30)
	d := &Dataset{Ptr: []int{0}}
	// The values are parsed into chunks of whole rows and copied once into
	// slices of the exact size at the end: appending to one growing slice
	// copied every value four to five times (a third of the time of a
	// large read) and left up to a quarter of its capacity unused.
	var ch chunks
	d.Idx, d.Val = make([]int32, 0, chunkLen), make([]float64, 0, chunkLen)
	line := 0
	// truncated says where compressed data stopped short: a download cut
	// short is the usual cause, and "unexpected EOF" alone does not say so.
	truncated := func(err error) error {
		if kind != "" && errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: the %s data ends early, at byte %d of the file, after line %d: truncated?",
				ErrFormat, kind, cr.n, line)
		}
		return nil
	}
	for sc.Scan() {
		line++
		b := sc.Bytes()
		// A line of m bytes holds at most m/4 + 1 values ("1:1 "): start
		// a new chunk if they might not fit, rather than grow this one.
		if cap(d.Idx)-len(d.Idx) < len(b)/4+1 && len(d.Idx) > 0 {
			ch.add(d)
		}
		rows := len(d.Ptr)
		if err := d.parseLine(b); err != nil {
			// The scanner hands over the part of a line read before a read
			// error: if the data stops here, that is the error to report.
			line--
			if !sc.Scan() {
				if terr := truncated(sc.Err()); terr != nil {
					return nil, terr
				}
			}
			return nil, fmt.Errorf("line %d: %w", line+1, err)
		}
		if len(d.Ptr) > rows {
			d.Ptr[rows] += ch.stored
		}
	}
	if err := sc.Err(); err != nil {
		if terr := truncated(err); terr != nil {
			return nil, terr
		}
		return nil, fmt.Errorf("after line %d: %w", line, err)
	}
	ch.join(d)
	return d, nil
}

// chunkLen is the number of values in a chunk of ReadRaw (12 MB); a
// variable so that tests can make rows straddle many chunks.
var chunkLen = 1 << 20

// chunks holds the rows parsed so far, outside the current chunk.
type chunks struct {
	idx    [][]int32
	val    [][]float64
	stored int // values in idx and val
}

// add moves the current chunk of d into c and gives d a new one.
func (c *chunks) add(d *Dataset) {
	c.idx, c.val = append(c.idx, d.Idx), append(c.val, d.Val)
	c.stored += len(d.Idx)
	d.Idx, d.Val = make([]int32, 0, chunkLen), make([]float64, 0, chunkLen)
}

// join sets d's values to the chunks followed by d's current chunk, in
// slices of the exact length.
func (c *chunks) join(d *Dataset) {
	if c.stored == 0 {
		d.Idx, d.Val = slices.Clip(d.Idx), slices.Clip(d.Val)
		return
	}
	n := c.stored + len(d.Idx)
	idx, val := make([]int32, 0, n), make([]float64, 0, n)
	for k := range c.idx {
		idx, val = append(idx, c.idx[k]...), append(val, c.val[k]...)
		c.idx[k], c.val[k] = nil, nil // free each chunk once copied
	}
	d.Idx, d.Val = append(idx, d.Idx...), append(val, d.Val...)
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += int64(k)
	return k, err
}

// decompress sniffs gzip (1f 8b) and bzip2 ("BZh") magic bytes; kind names
// the compression, "" for plain text.
func decompress(r io.Reader) (in io.Reader, kind string, err error) {
	br := bufio.NewReaderSize(r, 1<<16)
	magic, err := br.Peek(3)
	if err != nil && err != io.EOF {
		return nil, "", err
	}
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, "", fmt.Errorf("%w: the gzip data ends early, within its header: truncated?", ErrFormat)
		}
		return zr, "gzip", err
	case len(magic) == 3 && string(magic) == "BZh":
		return bzip2.NewReader(br), "bzip2", nil
	}
	return br, "", nil
}

// quote quotes a token of a bad line for an error message, cut to its first
// 24 bytes, so that a binary file does not flood the message; bytes that are
// not printable text show as escapes.
func quote(tok []byte) string {
	const max = 24
	if len(tok) <= max {
		return strconv.Quote(string(tok))
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(string(tok[:max])), len(tok))
}

// notText reports whether b holds bytes a LIBSVM text file cannot: NUL,
// other control characters than white space, or invalid UTF-8.
func notText(b []byte) bool {
	ascii := true
	for _, c := range b {
		switch {
		case c >= 0x80:
			ascii = false
		case c < 0x20 && !isSpace(c) || c == 0x7f:
			return true
		}
	}
	return !ascii && !utf8.Valid(b)
}

// parseLine appends one example; blank and comment-only lines add nothing.
func (d *Dataset) parseLine(b []byte) error {
	if k := bytes.IndexByte(b, '#'); k >= 0 {
		b = b[:k]
	}
	if notText(b) {
		return fmt.Errorf("%w: not text (a binary file?): starts %s", ErrFormat, quote(b))
	}
	f := fields(b)
	tok, f := f.next()
	if tok == nil {
		return nil
	}
	y, err := parseFloat(tok)
	if err != nil {
		return fmt.Errorf("%w: label %s is not a finite number", ErrFormat, quote(tok))
	}
	start := len(d.Idx)
	prev := int64(0)
	for {
		tok, f = f.next()
		if tok == nil {
			break
		}
		k := bytes.IndexByte(tok, ':')
		if k < 0 {
			d.Idx, d.Val = d.Idx[:start], d.Val[:start]
			return fmt.Errorf("%w: %s is not index:value", ErrFormat, quote(tok))
		}
		if string(tok[:k]) == "qid" {
			continue
		}
		j, err := strconv.ParseInt(string(tok[:k]), 10, 32)
		if err != nil || j < 1 || j <= prev {
			d.Idx, d.Val = d.Idx[:start], d.Val[:start]
			return indexError(tok[:k], j, err, prev)
		}
		v, err := parseFloat(tok[k+1:])
		if err != nil {
			d.Idx, d.Val = d.Idx[:start], d.Val[:start]
			return fmt.Errorf("%w: value %s is not a finite number", ErrFormat, quote(tok[k+1:]))
		}
		prev = j
		d.Idx = append(d.Idx, int32(j-1))
		d.Val = append(d.Val, v)
	}
	if int(prev) > d.D {
		d.D = int(prev)
	}
	d.Labels = append(d.Labels, y)
	d.Ptr = append(d.Ptr, len(d.Idx))
	return nil
}

// indexError says why the feature index tok (parsed as j, with err) is
// refused after the index prev.
func indexError(tok []byte, j int64, err error, prev int64) error {
	var ne *strconv.NumError
	switch {
	case errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) && !bytes.HasPrefix(tok, []byte("-")):
		return fmt.Errorf("%w: index %s is too large: at most %d", ErrFormat, quote(tok), math.MaxInt32)
	case err != nil:
		return fmt.Errorf("%w: index %s is not an integer", ErrFormat, quote(tok))
	case j < 1:
		return fmt.Errorf("%w: index %s is below 1 (indices start at 1)", ErrFormat, quote(tok))
	}
	return fmt.Errorf("%w: index %s is not above the previous one, %d (indices must increase)", ErrFormat, quote(tok), prev)
}

// parseFloat accepts finite numbers only: a NaN or infinite feature would
// poison every iterate that touches it.
func parseFloat(b []byte) (float64, error) {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New("not finite")
	}
	return v, nil
}

// fields iterates over the blank-separated tokens of a line without
// allocating.
type fields []byte

func (f fields) next() ([]byte, fields) {
	i := 0
	for i < len(f) && isSpace(f[i]) {
		i++
	}
	if i == len(f) {
		return nil, nil
	}
	j := i
	for j < len(f) && !isSpace(f[j]) {
		j++
	}
	return f[i:j], f[j:]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// BinaryLabels maps the smaller of the two distinct values in labels to −1
// and the larger to +1, in place. A single distinct value is mapped to +1 if
// it is positive and to −1 otherwise. More than two distinct values is an
// error wrapping ErrFormat.
func BinaryLabels(labels []float64) error {
	if len(labels) == 0 {
		return nil
	}
	lo, hi := labels[0], labels[0]
	for _, y := range labels {
		switch {
		case y == lo || y == hi:
		case lo == hi && y < lo:
			lo = y
		case lo == hi && y > hi:
			hi = y
		default:
			return fmt.Errorf("%w: more than two label values (%v, %v, %v)", ErrFormat, lo, hi, y)
		}
	}
	if lo == hi {
		v := -1.0
		if lo > 0 {
			v = 1
		}
		for i := range labels {
			labels[i] = v
		}
		return nil
	}
	for i, y := range labels {
		if y == lo {
			labels[i] = -1
		} else {
			labels[i] = 1
		}
	}
	return nil
}

// Synthetic returns the synthetic regression set of the paper's supplement,
// generated deterministically from seed: an n×d matrix A of standard normal
// features, a weight vector w of standard normal entries, and targets
// y_i = wᵀa_i + ε_i with ε_i standard Cauchy. The paper uses n = 1000, d = 10.
// Rows are stored dense (every index present).
func Synthetic(seed uint64, n, d int) *Dataset {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	w := make([]float64, d)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	ds := &Dataset{
		Labels: make([]float64, n),
		Ptr:    make([]int, n+1),
		Idx:    make([]int32, n*d),
		Val:    make([]float64, n*d),
		D:      d,
	}
	for i := range n {
		ds.Ptr[i+1] = (i + 1) * d
		var dot float64
		for j := range d {
			a := rng.NormFloat64()
			ds.Idx[i*d+j] = int32(j)
			ds.Val[i*d+j] = a
			dot += a * w[j]
		}
		// Standard Cauchy by inversion; u lies strictly inside (0, 1), so the
		// tangent never reaches ±π/2.
		u := rng.Float64() + 0x1p-54
		ds.Labels[i] = dot + math.Tan(math.Pi*(u-0.5))
	}
	return ds
}
