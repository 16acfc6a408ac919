package srg

import (
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/reweighted/reweighted"
)

// State is a run of Run at one of its checkpoints: everything it needs to
// go on as if it had never stopped — the iterate, the step counter, the
// random source, SRG's sampler, SVRG's reference point and full gradient,
// the reshuffled permutation and its position, the partial shuffle of
// mini-batches drawn without replacement, and the trace so far. Run hands
// it to Options.Checkpoint; MarshalBinary saves it and UnmarshalBinary
// reads it back; Resume goes on from it.
//
// A State also records the run's shape (method, protocol, batch, n, d, μ,
// seed, q, PerEpoch, Bernoulli, what the trace measures, and fingerprints
// of X0 and XStar), which Resume checks against its Problem and Options.
// The zero State is empty: only UnmarshalBinary can fill it.
type State struct {
	// The run's shape.
	method                  Method
	protocol                Protocol
	bernoulli               bool
	xstar, subopt, variance bool
	n, d, batch, per        int
	seed                    uint64
	q, mu                   float64
	x0Sum, xStarSum         uint64

	k, evals, keyUpdates, before int
	alpha                        [2]float64
	busy                         time.Duration
	src                          []byte // the PCG's MarshalBinary

	v        []float64 // the iterate s·v + t·h
	s, t, sq float64
	stale    bool
	w, gw, h []float64 // SVRG
	perm     []int     // Reshuffled
	pos      int
	upos     []int // SGD and SVRG without replacement

	smp     reweighted.Distribution // SRG, in the State that Run hands out
	smpData []byte                  // SRG, in a decoded State: its saved state

	tr Trace // Evals, RelErr, Subopt, Var, Alpha and Seconds so far
}

// ErrState reports saved bytes that are not a State: truncated, corrupted
// (the checksum fails), of another format or version, or describing a run
// that cannot be. Errors wrap it; match with errors.Is.
var ErrState = errors.New("srg: invalid saved state")

// ErrStop is what an Options.Checkpoint function returns to stop a run on
// purpose; Run then returns the trace so far and an error wrapping it.
var ErrStop = errors.New("srg: run stopped")

// The saved State, written by encode and read by decode; every integer is
// little endian, a uint64 unless said, and every float its IEEE 754 bits:
//
//	bytes      field
//	8          magic "SRGSTATE"
//	4          version (uint32), 1
//	1, 1, 1    method, protocol, flags (Bernoulli 1, x* 2, suboptimality 4,
//	           variance 8, ‖v‖² stale 16)
//	4×8        n, d, batch, checkpoints per epoch
//	8, 8, 8    seed, q (0 but for SVRG), μ
//	8, 8       FNV-1a fingerprints of the bits of X0 and XStar
//	5×8        iterations, gradient evaluations, key updates, checkpoints
//	           before the first iteration, nanoseconds in iterations
//	2×8        α of the first iteration and of the last
//	8, S       S, and the source's MarshalBinary (a PCG's: 20 bytes)
//	3×8        the iterate's s, t and ‖v‖²
//	8d         v
//	3×8d       SVRG only: w, ∇F(w), h = μw − ∇F(w)
//	8, 8n      Reshuffled only: the position, the permutation
//	8n         SGD and SVRG without replacement only: the partial shuffle
//	8, L       SRG only: L, and the sampler's saved state (package
//	           reweighted's format, L bytes)
//	8          c, the checkpoints recorded
//	3×8c       their Evals, Alpha, Seconds
//	8c each    RelErr with x*, Subopt with suboptimality, Var with variance
//	4          CRC-32C (Castagnoli) of every byte before it
const (
	stateMagic   = "SRGSTATE"
	stateVersion = 1
)

const (
	flagBernoulli = 1 << iota
	flagXStar
	flagSubopt
	flagVariance
	flagStale
	flagAll = 1<<iota - 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Iterations returns the number of iterations run.
func (st *State) Iterations() int { return st.k }

// Checkpoints returns the number of checkpoints recorded.
func (st *State) Checkpoints() int { return len(st.tr.Evals) }

// Epoch returns the epoch of the last checkpoint recorded, as Trace.Evals
// holds it (t/PerEpoch for checkpoint t), or 0 for an empty State.
func (st *State) Epoch() float64 {
	if len(st.tr.Evals) == 0 {
		return 0
	}
	return st.tr.Evals[len(st.tr.Evals)-1]
}

// Trace returns the trace so far, as Run would return it had it stopped
// here: the checkpoints recorded, the current iterate as X, and the counts.
// Its slices are copies.
func (st *State) Trace() Trace {
	tr := Trace{
		Evals:      slices.Clone(st.tr.Evals),
		RelErr:     slices.Clone(st.tr.RelErr),
		Subopt:     slices.Clone(st.tr.Subopt),
		Var:        slices.Clone(st.tr.Var),
		Alpha:      slices.Clone(st.tr.Alpha),
		Seconds:    slices.Clone(st.tr.Seconds),
		Iterations: st.k, GradEvals: st.evals, KeyUpdates: st.keyUpdates,
	}
	if st.k > 0 {
		for j := range st.before {
			tr.Alpha[j] = st.alpha[0]
		}
	}
	if st.v != nil {
		tr.X = make([]float64, len(st.v))
		it := iterate{v: st.v, s: st.s, t: st.t, h: st.h}
		it.dense(tr.X)
	}
	return tr
}

// MarshalBinary implements encoding.BinaryMarshaler.
func (st *State) MarshalBinary() ([]byte, error) { return st.AppendBinary(nil) }

// AppendBinary implements encoding.BinaryAppender: it appends the encoded
// State to b. It fails only for an empty State or when SRG's sampler fails
// to marshal itself.
func (st *State) AppendBinary(b []byte) ([]byte, error) {
	if st.n == 0 {
		return b, fmt.Errorf("%w: an empty State", ErrState)
	}
	return st.encode(b)
}

// encode appends st, whatever its fields, to b.
func (st *State) encode(b []byte) ([]byte, error) {
	start := len(b)
	b = append(b, stateMagic...)
	b = binary.LittleEndian.AppendUint32(b, stateVersion)
	var flags byte
	for _, f := range [...]struct {
		on  bool
		bit byte
	}{{st.bernoulli, flagBernoulli}, {st.xstar, flagXStar}, {st.subopt, flagSubopt}, {st.variance, flagVariance}, {st.stale, flagStale}} {
		if f.on {
			flags |= f.bit
		}
	}
	b = append(b, byte(st.method), byte(st.protocol), flags)
	b = appendInts(b, st.n, st.d, st.batch, st.per)
	b = binary.LittleEndian.AppendUint64(b, st.seed)
	b = appendFloats(b, st.q, st.mu)
	b = binary.LittleEndian.AppendUint64(b, st.x0Sum)
	b = binary.LittleEndian.AppendUint64(b, st.xStarSum)
	b = appendInts(b, st.k, st.evals, st.keyUpdates, st.before, int(st.busy))
	b = appendFloats(b, st.alpha[0], st.alpha[1])
	b = appendInts(b, len(st.src))
	b = append(b, st.src...)
	b = appendFloats(b, st.s, st.t, st.sq)
	b = appendFloats(b, st.v...)
	if st.method == SVRG {
		b = appendFloats(b, st.w...)
		b = appendFloats(b, st.gw...)
		b = appendFloats(b, st.h...)
	}
	if st.method == Reshuffled {
		b = appendInts(b, st.pos)
		b = appendInts(b, st.perm...)
	}
	if st.upos != nil {
		b = appendInts(b, st.upos...)
	}
	if st.method == SRG {
		var err error
		if b, err = st.appendSampler(b); err != nil {
			return b[:start], err
		}
	}
	b = appendInts(b, len(st.tr.Evals))
	for _, a := range [][]float64{st.tr.Evals, st.tr.Alpha, st.tr.Seconds, st.tr.RelErr, st.tr.Subopt, st.tr.Var} {
		b = appendFloats(b, a...)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli)), nil
}

// appendSampler appends the length of SRG's saved sampler and its bytes,
// in the format of reweighted.AppendState: its own AppendBinary or
// MarshalBinary when it has one, else AppendState of its keys.
func (st *State) appendSampler(b []byte) ([]byte, error) {
	if st.smp == nil {
		b = appendInts(b, len(st.smpData))
		return append(b, st.smpData...), nil
	}
	at := len(b)
	b = appendInts(b, 0)
	var err error
	switch s := st.smp.(type) {
	case encoding.BinaryAppender:
		b, err = s.AppendBinary(b)
	case encoding.BinaryMarshaler:
		var data []byte
		data, err = s.MarshalBinary()
		b = append(b, data...)
	default:
		b = reweighted.AppendState(b, s, nil)
	}
	if err != nil {
		return b[:at], fmt.Errorf("srg: saving the sampler: %w", err)
	}
	binary.LittleEndian.PutUint64(b[at:], uint64(len(b)-at-8))
	return b, nil
}

func appendInts(b []byte, a ...int) []byte {
	for _, v := range a {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	return b
}

func appendFloats(b []byte, a ...float64) []byte {
	for _, v := range a {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler. It checks the
// bytes whole — magic, version, checksum, every count against the bytes
// that hold it, every field against the others — before it changes st,
// allocates no more than a small multiple of len(data), and returns an
// error wrapping ErrState for anything else than a State that
// MarshalBinary wrote. SRG's saved sampler is checked as
// reweighted.DecodeState checks it (errors wrapping reweighted.ErrFormat
// too); what a backend keeps beyond the keys (levels' layout) is checked
// by the backend, when Resume restores it.
func (st *State) UnmarshalBinary(data []byte) error {
	var s State
	if err := s.decode(data); err != nil {
		return fmt.Errorf("%w: %w", ErrState, err)
	}
	*st = s
	return nil
}

// reader takes fields from the front of a buffer; the first shortfall is
// kept in err, after which every read returns 0.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > len(r.b) {
		r.err = errors.New("truncated")
		return nil
	}
	p := r.b[:n:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) byte() byte {
	if p := r.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (r *reader) uint64() uint64 {
	if p := r.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (r *reader) float() float64 { return math.Float64frombits(r.uint64()) }

// int reads a count or counter, which must lie in [0, MaxInt].
func (r *reader) int(what string) int {
	u := r.uint64()
	if r.err == nil && u > math.MaxInt {
		r.err = fmt.Errorf("%s = %d", what, u)
	}
	return int(u)
}

// room reports whether count items of size bytes each fit in what is left.
func (r *reader) room(count, size int) bool {
	if r.err != nil {
		return false
	}
	if count > len(r.b)/size {
		r.err = fmt.Errorf("%d items of %d bytes in the %d left", count, size, len(r.b))
		return false
	}
	return true
}

func (r *reader) floats(count int) []float64 {
	if !r.room(count, 8) {
		return nil
	}
	a := make([]float64, count)
	for i := range a {
		a[i] = r.float()
	}
	return a
}

// perm reads a permutation of [0, n).
func (r *reader) perm(n int, what string) []int {
	if !r.room(n, 8) {
		return nil
	}
	a := make([]int, n)
	seen := make([]bool, n)
	for i := range a {
		u := r.uint64()
		if u >= uint64(n) || seen[u] {
			r.err = fmt.Errorf("%s is not a permutation of [0, %d)", what, n)
			return nil
		}
		seen[u] = true
		a[i] = int(u)
	}
	return a
}

func (st *State) decode(data []byte) error {
	const min = len(stateMagic) + 4 + 4
	if len(data) < min {
		return fmt.Errorf("%d bytes, fewer than the %d of the smallest", len(data), min)
	}
	if string(data[:len(stateMagic)]) != stateMagic {
		return errors.New("not a saved srg state (wrong magic)")
	}
	if v := binary.LittleEndian.Uint32(data[len(stateMagic):]); v != stateVersion {
		return fmt.Errorf("version %d, want %d", v, stateVersion)
	}
	body := data[:len(data)-4]
	if got, want := crc32.Checksum(body, castagnoli), binary.LittleEndian.Uint32(data[len(body):]); got != want {
		return fmt.Errorf("checksum %08x, want %08x", got, want)
	}
	r := &reader{b: body[len(stateMagic)+4:]}
	st.method, st.protocol = Method(r.byte()), Protocol(r.byte())
	flags := r.byte()
	st.bernoulli, st.xstar, st.subopt = flags&flagBernoulli != 0, flags&flagXStar != 0, flags&flagSubopt != 0
	st.variance, st.stale = flags&flagVariance != 0, flags&flagStale != 0
	st.n, st.d, st.batch, st.per = r.int("n"), r.int("d"), r.int("batch"), r.int("checkpoints per epoch")
	st.seed = r.uint64()
	st.q, st.mu = r.float(), r.float()
	st.x0Sum, st.xStarSum = r.uint64(), r.uint64()
	st.k, st.evals, st.keyUpdates = r.int("iterations"), r.int("gradient evaluations"), r.int("key updates")
	st.before, st.busy = r.int("checkpoints before the first iteration"), time.Duration(r.int("time"))
	st.alpha = [2]float64{r.float(), r.float()}
	if r.err != nil {
		return r.err
	}
	if err := st.checkShape(flags); err != nil {
		return err
	}
	nsrc := r.int("source length")
	if r.room(nsrc, 1) {
		st.src = append([]byte(nil), r.take(nsrc)...)
		if err := new(rand.PCG).UnmarshalBinary(st.src); err != nil {
			return fmt.Errorf("random source: %w", err)
		}
	}
	st.s, st.t, st.sq = r.float(), r.float(), r.float()
	st.v = r.floats(st.d)
	if st.method == SVRG {
		st.w, st.gw, st.h = r.floats(st.d), r.floats(st.d), r.floats(st.d)
	}
	if st.method == Reshuffled {
		st.pos = r.int("position")
		if r.err == nil && st.pos > st.n {
			return fmt.Errorf("position %d in a permutation of %d", st.pos, st.n)
		}
		st.perm = r.perm(st.n, "the reshuffled order")
	}
	if st.protocol == WithoutReplacement && (st.method == SGD || st.method == SVRG) {
		st.upos = r.perm(st.n, "the partial shuffle")
	}
	if st.method == SRG {
		size := r.int("sampler length")
		if r.room(size, 1) {
			st.smpData = append([]byte(nil), r.take(size)...)
			keys, _, err := reweighted.DecodeState(st.smpData)
			if err != nil {
				return fmt.Errorf("sampler: %w", err)
			}
			if len(keys) != st.n {
				return fmt.Errorf("a sampler of %d items for %d examples", len(keys), st.n)
			}
		}
	}
	c := r.int("checkpoints")
	series := 3
	for _, on := range []bool{st.xstar, st.subopt, st.variance} {
		if on {
			series++
		}
	}
	if r.room(c, 8*series) {
		st.tr.Evals, st.tr.Alpha, st.tr.Seconds = r.floats(c), r.floats(c), r.floats(c)
		if st.xstar {
			st.tr.RelErr = r.floats(c)
		}
		if st.subopt {
			st.tr.Subopt = r.floats(c)
		}
		if st.variance {
			st.tr.Var = r.floats(c)
		}
	}
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return fmt.Errorf("%d bytes after the trace", len(r.b))
	}
	return st.checkProgress()
}

// checkShape checks the run's shape and counters against one another.
func (st *State) checkShape(flags byte) error {
	switch {
	case st.method < SGD || st.method > SVRG:
		return fmt.Errorf("unknown method %d", int(st.method))
	case st.protocol < WithReplacement || st.protocol > WithoutReplacement:
		return fmt.Errorf("unknown protocol %d", int(st.protocol))
	case flags&^flagAll != 0:
		return fmt.Errorf("unknown flags %#x", flags)
	case st.bernoulli && st.method != SRG:
		return fmt.Errorf("bernoulli updates for %v", st.method)
	case st.subopt && !st.xstar:
		return errors.New("suboptimality without x*")
	case st.n < 1 || st.d < 1 || st.batch < 1 || st.per < 1 || st.n > math.MaxInt/4 || st.batch > math.MaxInt/4:
		// No run holds a quarter of the address space in examples or
		// gradients per iteration; the bound keeps the sums below exact.
		return fmt.Errorf("n = %d, d = %d, batch = %d, checkpoints per epoch = %d", st.n, st.d, st.batch, st.per)
	case st.protocol == WithoutReplacement && st.batch > st.n:
		return fmt.Errorf("a batch of %d without replacement from %d examples", st.batch, st.n)
	case st.method == SVRG && !(st.q > 0 && st.q <= 1), st.method != SVRG && math.Float64bits(st.q) != 0:
		return fmt.Errorf("q = %v for %v", st.q, st.method)
	case !(st.mu >= 0) || math.IsInf(st.mu, 0):
		return fmt.Errorf("μ = %v", st.mu)
	case st.k == 0 && (st.alpha != [2]float64{} || st.keyUpdates != 0):
		return errors.New("steps or key updates recorded before the first iteration")
	}
	// Every iteration takes m gradients, SVRG's 2m and n at each of its
	// refreshes, after the n of its first.
	m := st.batch
	if st.method != SVRG {
		if st.k > math.MaxInt/m || st.evals != st.k*m {
			return fmt.Errorf("%d gradient evaluations in %d iterations of %d", st.evals, st.k, m)
		}
	} else {
		if st.k > (math.MaxInt-st.n)/(2*m) {
			return fmt.Errorf("%d iterations", st.k)
		}
		rest := st.evals - st.n - 2*m*st.k
		if rest < 0 || rest%st.n != 0 || rest/st.n > st.k {
			return fmt.Errorf("%d gradient evaluations in %d iterations of %d and %d examples", st.evals, st.k, m, st.n)
		}
	}
	switch {
	case st.method != SRG && st.keyUpdates != 0:
		return fmt.Errorf("%d key updates for %v", st.keyUpdates, st.method)
	case st.method == SRG && !st.bernoulli && st.keyUpdates != st.evals,
		st.method == SRG && st.keyUpdates > st.evals:
		return fmt.Errorf("%d key updates in %d iterations of %d", st.keyUpdates, st.k, m)
	}
	return nil
}

// checkProgress checks the trace against the counters: checkpoint j at
// j/PerEpoch epochs, the last one reached by the last iteration and not
// before it.
func (st *State) checkProgress() error {
	c := len(st.tr.Evals)
	if c == 0 {
		return errors.New("no checkpoint")
	}
	for j, e := range st.tr.Evals {
		if math.Float64bits(e) != math.Float64bits(float64(j)/float64(st.per)) {
			return fmt.Errorf("checkpoint %d at %v epochs, want %v", j, e, float64(j)/float64(st.per))
		}
	}
	if st.k == 0 && st.before != c || st.k > 0 && !(st.before >= 1 && st.before < c) {
		return fmt.Errorf("%d of %d checkpoints before the first of %d iterations", st.before, c, st.k)
	}
	target := float64(c-1) * float64(st.n) / float64(st.per)
	step := st.batch // the most an iteration evaluates
	if st.method == SVRG {
		step = 2*st.batch + st.n
	}
	if float64(st.evals) < target || st.k > 0 && !(float64(st.evals-step) < target) {
		return fmt.Errorf("%d gradient evaluations at checkpoint %d of %d per epoch of %d", st.evals, c-1, st.per, st.n)
	}
	return nil
}

// state returns the run's State, which shares the run's memory.
func (r *run) state() *State {
	opt, o, x := r.opt, r.o, r.opt.x
	src, _ := opt.src.MarshalBinary() // a PCG always marshals
	st := &State{
		method: o.Method, protocol: o.Protocol, bernoulli: o.Bernoulli && o.Method == SRG,
		xstar: o.XStar != nil, subopt: o.Suboptimality, variance: o.Variance,
		n: r.p.Len(), d: r.p.Dim(), batch: o.Batch, per: r.per,
		seed: o.Seed, mu: r.p.Mu, x0Sum: r.x0Sum, xStarSum: r.xStarSum,
		k: opt.k, evals: opt.evals, keyUpdates: opt.keyUpdates, before: r.before,
		alpha: opt.alpha, busy: r.busy, src: src,
		v: x.v, s: x.s, t: x.t, sq: x.sq, stale: x.stale,
		perm: opt.perm, pos: opt.pos, upos: opt.upos,
		smp: opt.smp, tr: r.tr,
	}
	if o.Method == SVRG {
		st.q, st.w, st.gw, st.h = o.Q, opt.w, opt.gw, opt.h
	}
	return st
}

// fingerprint returns the FNV-1a hash of the bits of a.
func fingerprint(a []float64) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range a {
		u := math.Float64bits(v)
		for range 8 {
			h = (h ^ (u & 0xff)) * 1099511628211
			u >>= 8
		}
	}
	return h
}

// Resume goes on with the run saved in st, on the Problem and with the
// Options it was started with, and returns the whole trace, the
// checkpoints recorded before st included: the trace of a run that never
// stopped, bit for bit (but for Seconds, the time spent), whichever
// checkpoint st was saved at. Checkpoint aside, the options may differ in
// two ways only: a larger Epochs extends the run, and another Schedule (or
// NewSampler) branches from st. Seconds go on from the time st recorded. Resume calls Options.Checkpoint at the checkpoints
// that follow, as Run does.
//
// SRG's sampler is built by NewSampler and restored from st: by its own
// UnmarshalBinary when it has one, else from the keys saved (by Load, or
// by Set in index order). Keys alone restore a map-exact sampler whole, so
// a run saved with one map-exact backend resumes exactly on any other; a
// law-exact one draws the same items after a resume only if it saves and
// restores its layout, as levels does.
//
// Options that do not fit st are an error wrapping ErrInput; a sampler in
// st that cannot be restored, one wrapping ErrState. st is not changed and
// can be resumed again.
func Resume(p *Problem, o Options, st *State) (Trace, error) {
	if st == nil || st.n == 0 {
		return Trace{}, fmt.Errorf("%w: an empty State", ErrInput)
	}
	r, err := newRun(p, o, st)
	if err != nil {
		return Trace{}, err
	}
	return r.loop()
}

// restore moves the run to st after checking that st is a state of it.
func (r *run) restore(st *State) error {
	opt, o := r.opt, r.o
	mismatch := func(what string, run, saved any) error {
		return fmt.Errorf("%w: the run's %s is %v, the state's %v", ErrInput, what, run, saved)
	}
	q := 0.0
	if o.Method == SVRG {
		q = o.Q
	}
	switch {
	case o.Method != st.method:
		return mismatch("method", o.Method, st.method)
	case o.Protocol != st.protocol:
		return mismatch("protocol", o.Protocol, st.protocol)
	case r.p.Len() != st.n || r.p.Dim() != st.d:
		return mismatch("n×d", fmt.Sprint(r.p.Len(), "×", r.p.Dim()), fmt.Sprint(st.n, "×", st.d))
	case math.Float64bits(r.p.Mu) != math.Float64bits(st.mu):
		return mismatch("μ", r.p.Mu, st.mu)
	case o.Batch != st.batch:
		return mismatch("batch", o.Batch, st.batch)
	case (o.Bernoulli && o.Method == SRG) != st.bernoulli:
		return mismatch("Bernoulli", o.Bernoulli, st.bernoulli)
	case math.Float64bits(q) != math.Float64bits(st.q):
		return mismatch("q", q, st.q)
	case r.per != st.per:
		return mismatch("PerEpoch", r.per, st.per)
	case o.Seed != st.seed:
		return mismatch("Seed", o.Seed, st.seed)
	case (o.XStar != nil) != st.xstar || o.Suboptimality != st.subopt || o.Variance != st.variance:
		return fmt.Errorf("%w: the run records other measures than the state's", ErrInput)
	case r.x0Sum != st.x0Sum:
		return fmt.Errorf("%w: the run's X0 is not the state's", ErrInput)
	case r.xStarSum != st.xStarSum:
		return fmt.Errorf("%w: the run's XStar is not the state's", ErrInput)
	case len(st.tr.Evals)-1 > r.total:
		return fmt.Errorf("%w: the state is at %v epochs, past Epochs = %v", ErrInput, st.tr.Evals[len(st.tr.Evals)-1], o.Epochs)
	}
	if o.Method == SRG {
		if err := restoreSampler(opt.smp, st); err != nil {
			return err
		}
	}
	if err := opt.src.UnmarshalBinary(st.src); err != nil {
		return fmt.Errorf("%w: random source: %w", ErrState, err)
	}
	opt.k, opt.evals, opt.keyUpdates, opt.alpha = st.k, st.evals, st.keyUpdates, st.alpha
	x := opt.x
	copy(x.v, st.v)
	x.s, x.t, x.sq, x.stale = st.s, st.t, st.sq, st.stale
	if o.Method == SVRG {
		copy(opt.w, st.w)
		copy(opt.gw, st.gw)
		copy(opt.h, st.h)
		x.h = opt.h
	}
	if o.Method == Reshuffled {
		copy(opt.perm, st.perm)
		opt.pos = st.pos
	}
	copy(opt.upos, st.upos)
	r.tr = Trace{
		Evals: slices.Clone(st.tr.Evals), RelErr: slices.Clone(st.tr.RelErr), Subopt: slices.Clone(st.tr.Subopt),
		Var: slices.Clone(st.tr.Var), Alpha: slices.Clone(st.tr.Alpha), Seconds: slices.Clone(st.tr.Seconds),
	}
	r.before, r.busy = st.before, st.busy
	return nil
}

// restoreSampler restores SRG's sampler s from st: by its own
// UnmarshalBinary when it has one, else from the keys, by Load or by Set.
func restoreSampler(s reweighted.Distribution, st *State) error {
	data := st.smpData
	if st.smp != nil { // a State that Run handed out: go through its bytes
		b, err := st.appendSampler(nil)
		if err != nil {
			return err
		}
		data = b[8:]
	}
	err := loadSampler(s, data)
	if err != nil {
		return fmt.Errorf("%w: sampler: %w", ErrState, err)
	}
	if s.Len() != st.n {
		return fmt.Errorf("%w: the sampler restored holds %d items, want %d", ErrState, s.Len(), st.n)
	}
	return nil
}

func loadSampler(s reweighted.Distribution, data []byte) error {
	if u, ok := s.(encoding.BinaryUnmarshaler); ok {
		return u.UnmarshalBinary(data)
	}
	keys, _, err := reweighted.DecodeState(data)
	if err != nil {
		return err
	}
	if l, ok := s.(interface{ Load([]float64) error }); ok {
		return l.Load(keys)
	}
	if s.Len() != len(keys) {
		return fmt.Errorf("%d keys for %d items", len(keys), s.Len())
	}
	for i, a := range keys {
		if err := s.Set(i, a); err != nil {
			return err
		}
	}
	return nil
}
