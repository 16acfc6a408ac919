package srg

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/ost"
)

// stateProblem is a small least-squares problem, 12 examples of 4 features.
func stateProblem(t testing.TB) *Problem {
	ds := libsvm.Synthetic(3, 12, 4)
	p, err := NewProblem(ds, ds.Labels, Squared, 0.05)
	require.NoError(t, err)
	return p
}

// keysOnly is a map-exact sampler with neither the encoding methods nor
// Load: SRG saves its keys and restores them by Set.
type keysOnly struct{ reweighted.Sampler }

// stateOptions returns options recording every measure, for method m.
func stateOptions(p *Problem, m Method, proto Protocol) Options {
	xs := make([]float64, p.Dim())
	for j := range xs {
		xs[j] = 0.5
	}
	o := Options{Method: m, Protocol: proto, Batch: 2, Schedule: Constant{Alpha: 0.02, Eps: 0.5 / float64(p.Len())},
		Epochs: 2, PerEpoch: 3, Seed: 9, XStar: xs, Suboptimality: true, Variance: true}
	if m == SRG {
		o.NewSampler = func(n int) reweighted.Distribution { return keysOnly{btree.New(n)} }
	}
	return o
}

// savedAt runs o and returns the bytes of its State at checkpoint at.
func savedAt(t testing.TB, p *Problem, o Options, at int) []byte {
	var saved []byte
	o.Checkpoint = func(st *State) error {
		if st.Checkpoints() == at+1 {
			var err error
			saved, err = st.MarshalBinary()
			require.NoError(t, err)
		}
		return nil
	}
	_, err := Run(p, o)
	require.NoError(t, err)
	require.NotNil(t, saved)
	return saved
}

// reseal rewrites the CRC-32C at the end of b, so that a change to b is
// judged by the checks behind the checksum.
func reseal(b []byte) []byte {
	body := b[:len(b)-4]
	binary.LittleEndian.PutUint32(b[len(body):], crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// decoded returns the State in b.
func decoded(t testing.TB, b []byte) *State {
	var st State
	require.NoError(t, st.UnmarshalBinary(b))
	return &st
}

// requireRejected requires UnmarshalBinary of b to fail with ErrState and
// leave a receiver holding good exactly as it was.
func requireRejected(t testing.TB, good, b []byte, msg string, args ...any) {
	t.Helper()
	st := decoded(t, good)
	err := st.UnmarshalBinary(b)
	require.ErrorIs(t, err, ErrState, append([]any{msg}, args...)...)
	again, err2 := st.MarshalBinary()
	require.NoError(t, err2)
	require.Equal(t, good, again, append([]any{"the receiver changed: " + msg}, args...)...)
}

// Every truncation, every single flipped bit, a wrong magic, another
// version, bytes past the end: each is rejected with ErrState, the
// receiver unchanged.
func TestStateRejectsDamagedBytes(t *testing.T) {
	p := stateProblem(t)
	for _, m := range []Method{SGD, Reshuffled, SRG, SVRG} {
		good := savedAt(t, p, stateOptions(p, m, WithoutReplacement), 2)
		for k := range len(good) {
			requireRejected(t, good, good[:k], "%v truncated to %d bytes", m, k)
		}
		for bit := range 8 * len(good) {
			b := append([]byte(nil), good...)
			b[bit/8] ^= 1 << (bit % 8)
			requireRejected(t, good, b, "%v with bit %d flipped", m, bit)
		}
		b := append([]byte(nil), good...)
		b[0] = 'X'
		requireRejected(t, good, reseal(b), "%v with a wrong magic", m)
		b = append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(b[len(stateMagic):], stateVersion+1)
		requireRejected(t, good, reseal(b), "%v of the next version", m)
		b = append(append([]byte(nil), good[:len(good)-4]...), 0, 0, 0, 0, 0)
		requireRejected(t, good, reseal(b), "%v with a byte after the trace", m)
	}
}

// A State whose fields contradict one another, sealed with a good
// checksum, is rejected with ErrState: each mutation below makes one of
// the checks of UnmarshalBinary fail.
func TestStateRejectsInconsistentFields(t *testing.T) {
	p := stateProblem(t)
	blobs := map[Method][]byte{}
	for _, m := range []Method{SGD, Reshuffled, SRG, SVRG} {
		blobs[m] = savedAt(t, p, stateOptions(p, m, WithoutReplacement), 5)
	}
	for _, c := range []struct {
		name   string
		method Method
		mutate func(st *State)
	}{
		{"unknown method", SGD, func(st *State) { st.method = 4 }},
		{"unknown protocol", SGD, func(st *State) { st.protocol = 2 }},
		{"Bernoulli for SGD", SGD, func(st *State) { st.bernoulli = true }},
		{"suboptimality without x*", SGD, func(st *State) { st.xstar, st.tr.RelErr = false, nil }},
		{"no examples", SGD, func(st *State) { st.n = 0 }},
		{"no features", SGD, func(st *State) { st.d, st.v = 0, nil }},
		{"zero batch", SGD, func(st *State) { st.batch = 0 }},
		{"batch past n without replacement", SGD, func(st *State) { st.batch = st.n + 1 }},
		{"q for SGD", SGD, func(st *State) { st.q = 0.5 }},
		{"q = 0 for SVRG", SVRG, func(st *State) { st.q = 0 }},
		{"q > 1 for SVRG", SVRG, func(st *State) { st.q = 1.5 }},
		{"negative μ", SGD, func(st *State) { st.mu = -1 }},
		{"NaN μ", SGD, func(st *State) { st.mu = math.NaN() }},
		{"evaluations not m per iteration", SGD, func(st *State) { st.evals++ }},
		{"SVRG's evaluations not n per refresh", SVRG, func(st *State) { st.evals++ }},
		{"SVRG with more refreshes than iterations", SVRG, func(st *State) { st.evals += (st.k + 1) * st.n }},
		{"iterations past MaxInt/m", SGD, func(st *State) { st.k = math.MaxInt/2 + 1 }},
		{"key updates for SGD", SGD, func(st *State) { st.keyUpdates = 1 }},
		{"fewer key updates than draws", SRG, func(st *State) { st.keyUpdates-- }},
		{"steps before the first iteration", SGD, func(st *State) { st.k, st.evals, st.tr.Evals = 0, 0, st.tr.Evals[:1] }},
		{"a source of another generator", SGD, func(st *State) { st.src = []byte("chacha8:0123456789abcdef") }},
		{"position past n", Reshuffled, func(st *State) { st.pos = st.n + 1 }},
		{"reshuffled order with a repeat", Reshuffled, func(st *State) { st.perm[0] = st.perm[1] }},
		{"reshuffled order out of range", Reshuffled, func(st *State) { st.perm[0] = st.n }},
		{"partial shuffle with a repeat", SGD, func(st *State) { st.upos[2] = st.upos[3] }},
		{"SVRG's partial shuffle out of range", SVRG, func(st *State) { st.upos[0] = -1 }},
		{"a sampler of another format", SRG, func(st *State) { st.smpData = []byte("not a sampler's saved state") }},
		{"a sampler with a bad checksum", SRG, func(st *State) { st.smpData[len(st.smpData)-1] ^= 1 }},
		{"a sampler of another n", SRG, func(st *State) { st.smpData = keysBlob(make([]float64, st.n-1)) }},
		{"a NaN key", SRG, func(st *State) { putKey(st, 1, math.NaN()) }},
		{"an infinite key", SRG, func(st *State) { putKey(st, 1, math.Inf(1)) }},
		{"a negative key", SRG, func(st *State) { putKey(st, 1, -1) }},
		{"keys past MaxSum", SRG, func(st *State) {
			for i := range st.n {
				putKey(st, i, reweighted.MaxSum/4)
			}
		}},
		{"no checkpoint", SGD, func(st *State) { st.tr = Trace{} }},
		{"checkpoints off the grid", SGD, func(st *State) { st.tr.Evals[1] = 0.5 }},
		{"more checkpoints than evaluations reach", SGD, func(st *State) { grow(st) }},
		{"fewer checkpoints than evaluations reach", SGD, func(st *State) { shrink(st) }},
		{"no checkpoint before the first iteration", SGD, func(st *State) { st.before = 0 }},
		{"every checkpoint before the first iteration", SGD, func(st *State) { st.before = len(st.tr.Evals) }},
	} {
		st := decoded(t, blobs[c.method])
		c.mutate(st)
		b, err := st.encode(nil)
		require.NoError(t, err, c.name)
		requireRejected(t, blobs[c.method], b, c.name)
	}
}

// putKey sets key i of the saved sampler of st to a.
func putKey(st *State, i int, a float64) {
	keys := make([]float64, st.n)
	for j := range keys {
		keys[j] = math.Float64frombits(binary.LittleEndian.Uint64(st.smpData[16+8*j:]))
	}
	keys[i] = a
	st.smpData = keysBlob(keys)
}

// keysBlob writes keys in the saved-state format of package reweighted
// (magic, version 1, n, the keys, an empty extension, the CRC-32C), as its
// documentation specifies it.
func keysBlob(keys []float64) []byte {
	b := binary.LittleEndian.AppendUint32([]byte("RWKS"), 1)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(keys)))
	for _, a := range keys {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(a))
	}
	b = binary.LittleEndian.AppendUint64(b, 0)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// grow and shrink add a checkpoint to the trace or drop one, leaving the
// counters as they were.
func grow(st *State) {
	c := len(st.tr.Evals)
	st.tr.Evals = append(st.tr.Evals, float64(c)/float64(st.per))
	for _, a := range []*[]float64{&st.tr.Alpha, &st.tr.Seconds, &st.tr.RelErr, &st.tr.Subopt, &st.tr.Var} {
		*a = append(*a, 0)
	}
}

func shrink(st *State) {
	c := len(st.tr.Evals) - 1
	for _, a := range []*[]float64{&st.tr.Evals, &st.tr.Alpha, &st.tr.Seconds, &st.tr.RelErr, &st.tr.Subopt, &st.tr.Var} {
		*a = (*a)[:c]
	}
}

// A count that claims more items than the bytes hold — 2^60, MaxInt, or
// ten million, any of which a decoder that trusted it would allocate — is
// rejected with ErrState before anything of that size is allocated: n and
// d, and the counts of the source's bytes, the sampler's bytes and the
// checkpoints, each with its items removed.
func TestStateClaimsBeyondTheInput(t *testing.T) {
	p := stateProblem(t)
	const srcLenAt = 143 // after the head, the shape, the counters and α
	for _, m := range []Method{SGD, Reshuffled, SRG, SVRG} {
		good := savedAt(t, p, stateOptions(p, m, WithoutReplacement), 2)
		for _, huge := range []uint64{1 << 60, math.MaxInt / 4, math.MaxInt, 1 << 63, 1e7} {
			cases := map[string][]byte{}
			put := func(name string, b []byte, at int) {
				b = append([]byte(nil), b...)
				binary.LittleEndian.PutUint64(b[at:], huge)
				cases[name] = reseal(b)
			}
			put("n", good, 15)
			put("d", good, 23)
			st := decoded(t, good)
			st.tr = Trace{}
			b := marshal(t, st)
			put("checkpoints", b, len(b)-4-8)
			st = decoded(t, good)
			st.src = nil
			put("source length", marshal(t, st), srcLenAt)
			if m == SRG {
				st = decoded(t, good)
				st.smpData = nil
				put("sampler length", marshal(t, st), srcLenAt+8+len(st.src)+24+8*st.d+1)
			}
			for name, b := range cases {
				var fresh State
				before := allocated()
				err := fresh.UnmarshalBinary(b)
				grew := allocated() - before
				require.ErrorIs(t, err, ErrState, "%v: %s = %d", m, name, huge)
				require.Less(t, grew, uint64(64<<10), "%v: %s = %d allocated %d bytes from %d", m, name, huge, grew, len(b))
			}
		}
	}
}

func marshal(t testing.TB, st *State) []byte {
	b, err := st.encode(nil)
	require.NoError(t, err)
	return b
}

func allocated() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// Resume refuses a State whose run is not the one asked for, wrapping
// ErrInput, and the State resumes afterwards with the right options.
func TestResumeRejectsAnotherRun(t *testing.T) {
	p := stateProblem(t)
	o := stateOptions(p, SVRG, WithoutReplacement)
	o.Q = 0.3
	st := decoded(t, savedAt(t, p, o, 4))
	want, err := Run(p, o)
	require.NoError(t, err)
	other := p.Len() - 1
	for _, c := range []struct {
		name   string
		mutate func(o *Options) *Problem
	}{
		{"method", func(o *Options) *Problem { o.Method = SGD; return p }},
		{"protocol", func(o *Options) *Problem { o.Protocol = WithReplacement; return p }},
		{"batch", func(o *Options) *Problem { o.Batch = 3; return p }},
		{"q", func(o *Options) *Problem { o.Q = 0.4; return p }},
		{"seed", func(o *Options) *Problem { o.Seed++; return p }},
		{"checkpoints per epoch", func(o *Options) *Problem { o.PerEpoch = 2; return p }},
		{"x0", func(o *Options) *Problem { o.X0 = make([]float64, p.Dim()); o.X0[0] = 1e-300; return p }},
		{"x*", func(o *Options) *Problem { o.XStar = append([]float64{0.25}, o.XStar[1:]...); return p }},
		{"measures", func(o *Options) *Problem { o.Variance = false; return p }},
		{"fewer epochs than done", func(o *Options) *Problem { o.Epochs = 1; return p }},
		{"μ", func(o *Options) *Problem { q := *p; q.Mu = 0.5; return &q }},
		{"n", func(o *Options) *Problem {
			ds := libsvm.Synthetic(3, other, 4)
			q, err := NewProblem(ds, ds.Labels, Squared, p.Mu)
			require.NoError(t, err)
			return q
		}},
	} {
		oc := o
		pc := c.mutate(&oc)
		_, err := Resume(pc, oc, st)
		require.ErrorIs(t, err, ErrInput, c.name)
	}
	_, err = Resume(p, o, nil)
	require.ErrorIs(t, err, ErrInput, "a nil State")
	_, err = Resume(p, o, &State{})
	require.ErrorIs(t, err, ErrInput, "an empty State")
	_, err = (&State{}).MarshalBinary()
	require.ErrorIs(t, err, ErrState, "an empty State marshals nothing")

	got, err := Resume(p, o, st)
	require.NoError(t, err)
	require.Equal(t, want.RelErr, got.RelErr)
}

// A map-exact sampler's state restores into any map-exact sampler, by its
// UnmarshalBinary, its Load or Set, and the run resumed goes on bit for
// bit as the run that never stopped: its keys are the whole of its state.
func TestResumeIntoAnotherSampler(t *testing.T) {
	p := stateProblem(t)
	o := stateOptions(p, SRG, WithoutReplacement)
	o.NewSampler = func(n int) reweighted.Distribution { return btree.New(n) }
	want, err := Run(p, o)
	require.NoError(t, err)
	for at := range want.Evals {
		st := decoded(t, savedAt(t, p, o, at))
		for name, f := range map[string]func(int) reweighted.Distribution{
			"btree":     func(n int) reweighted.Distribution { return btree.New(n) },
			"ost":       func(n int) reweighted.Distribution { return ost.New(n) },
			"Load only": func(n int) reweighted.Distribution { return loadOnly{btree.New(n)} },
			"Set only":  func(n int) reweighted.Distribution { return keysOnly{btree.New(n)} },
		} {
			oc := o
			oc.NewSampler = f
			got, err := Resume(p, oc, st)
			require.NoError(t, err, name)
			require.Equal(t, want.RelErr, got.RelErr, "%s from checkpoint %d", name, at)
			require.Equal(t, want.Var, got.Var, "%s from checkpoint %d", name, at)
		}
	}
}

// loadOnly is a map-exact sampler with Load but not the encoding methods.
type loadOnly struct{ *btree.Sampler }

func (loadOnly) MarshalBinary()   {} // hides the sampler's
func (loadOnly) UnmarshalBinary() {} // hides the sampler's
func (loadOnly) AppendBinary()    {} // hides the sampler's
