package backends_test

import (
	"flag"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/backends"
	"github.com/reweighted/reweighted/samplertest"
)

var long = flag.Bool("long", false, "run the conformance kit with 1,000 rapid checks a property and 10^6 draws a χ² test (minutes)")

// kitSizes sets the sizes of the conformance kit: 40 rapid checks a
// property and its default χ² draws (10^5) in the default run, which checks
// every backend in both modes; 1,000 checks and 10^6 draws with -long.
func kitSizes(t *testing.T) {
	if *long {
		samplertest.Sizes(t, 1000, 1_000_000)
		return
	}
	samplertest.Sizes(t, 40, 0)
}

// TestConformance runs the conformance kit on every listed backend: a
// backend added to All is checked against the whole contract here.
func TestConformance(t *testing.T) {
	kitSizes(t)
	for _, b := range backends.All {
		t.Run(b.Name, func(t *testing.T) { samplertest.Run(t, b.New) })
	}
}

// Every backend panics on Key of an item out of range, as a slice does.
func TestKeyPanicsOutOfRange(t *testing.T) {
	for _, b := range backends.Every() {
		s := b.Dist(3)
		require.Panics(t, func() { s.Key(3) }, b.Name)
		require.Panics(t, func() { s.Key(-1) }, b.Name)
	}
}

// Every listed backend has a distinct name, a constructor that makes
// samplers of the size asked, and Load gives the keys it was handed.
func TestList(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range backends.Every() {
		require.False(t, seen[b.Name], "duplicate name %s", b.Name)
		seen[b.Name] = true
		got, ok := backends.ByName(b.Name)
		require.True(t, ok)
		require.Equal(t, b.Name, got.Name)
		require.Equal(t, 5, b.Dist(5).Len())
		keys := []float64{3, 0, 1, 1, 2}
		s, err := backends.Load(b.Dist, keys)
		require.NoError(t, err)
		require.NoError(t, samplertest.VerifyLaw(s, keys, 0.1), b.Name)
		if b.MapExact() {
			m, err := backends.Load(b.New, keys)
			require.NoError(t, err)
			require.NoError(t, samplertest.Verify(m, keys, 0.1, samplertest.EdgeU), b.Name)
		}
		_, err = backends.Load(b.Dist, []float64{1, -1})
		require.ErrorIs(t, err, reweighted.ErrKey)
	}
	_, ok := backends.ByName("no such backend")
	require.False(t, ok)
	require.Len(t, backends.Names(), len(backends.All)+len(backends.Law))
}

// Regression: with a subnormal key at the bottom of the head at
// ε = 0, u just below 1 lies in the exact interval of the key before it
// (the subnormal key's p* rounds to 0, its interval is narrower than any
// float's spacing); segtree returned the subnormal item with p = 0. Every
// backend must draw an item with p > 0, the one whose exact interval holds
// u, with the p Prob returns. The second and third key vectors are the
// first that TinyKeys drew on which btree and segtree, and ost, returned
// p = 0 without the fix; the last two hold other subnormal keys.
func TestNeverDrawsProbZero(t *testing.T) {
	cases := [][]float64{
		{0, 2.1286503010020037, 0, 0.503301709312354, 0, 1e-323, 0.375656445219138, 1, 0, 1.5062268981686218, 0},
		{1.043817185873235, 0.28004137973858634, 0.3706941883833663, 5e-324, 1.0311971326354983},
		{2.0738239881738247e+180, 9.406614964626812e+179, 1.7580979352937294e+180, 2.0446507966956158e+180,
			2.3761983177346895e+180, 2e-323, 4.7296733892657385e+180, 9.422330494099876e+179, 1.5639030997258718e+180},
		{5e-324, 1, 0x1p-1022, 3e-323, 0.5},
		{3, 0, 5e-324, 5e-324, 1e-320, 0},
	}
	us := []float64{math.Nextafter(1, 0), 1 - 0x1p-52, 1 - 0x3p-53}
	for _, b := range backends.All {
		for _, keys := range cases {
			s, err := backends.Load(b.New, keys)
			require.NoError(t, err)
			ex := samplertest.Oracle(keys, 0)
			for _, u := range us {
				i, p, err := s.Sample(0, u)
				require.NoError(t, err)
				require.Equal(t, ex.Locate(u), i, "%s: Sample(0, %v) of %v", b.Name, u, keys)
				require.Positive(t, p, "%s: Sample(0, %v) = item %d of %v", b.Name, u, i, keys)
				q, err := s.Prob(i, 0)
				require.NoError(t, err)
				require.Equal(t, q, p, "%s: Prob(%d, 0)", b.Name, i)
			}
		}
	}
}

// TestLawConformance runs the kit's law mode on every listed backend, of
// either kind: the map-exact backends keep every promise of a law-exact
// one too.
func TestLawConformance(t *testing.T) {
	kitSizes(t)
	for _, b := range backends.Every() {
		t.Run(b.Name, func(t *testing.T) {
			if b.MapExact() && !*long {
				// A map-exact backend's draws are its exact map's, which
				// TestConformance checks item for item; its χ² tests here
				// check the way the root package draws from it, at a fifth
				// of the draws (the law-exact backends keep 10^5, the
				// kit's power).
				samplertest.Sizes(t, 40, 20_000)
			}
			samplertest.RunLaw(t, b.Dist)
		})
	}
}

// TestWeightedConformance runs the kit's weighted kind on every listed
// backend at ε = 0, through reweighted.Proportional: each draws from
// p_i = a_i/Σa and has no Find, so the checks of Find skip. Its χ² tests
// draw 5,000 times a case by default (250,000 with -long, and the long
// history 2·10^6 updates): the law at
// ε = 0 is the law the law mode tests at 10^5 draws a test.
func TestWeightedConformance(t *testing.T) {
	if *long {
		samplertest.Sizes(t, 1000, 1_000_000)
		samplertest.SetDefaultFlag(t, "samplertest.updates", "2000000")
	} else {
		samplertest.Sizes(t, 40, 20_000)
	}
	for _, b := range backends.Every() {
		t.Run(b.Name, func(t *testing.T) { samplertest.RunWeighted(t, b.Weighted) })
	}
}

// Every backend is of exactly one kind, and says which.
func TestKinds(t *testing.T) {
	for _, b := range backends.Every() {
		require.True(t, (b.New == nil) != (b.Law == nil), b.Name)
		require.Equal(t, b.New != nil, b.MapExact(), b.Name)
		require.Equal(t, 3, b.Dist(3).Len())
		_, isMap := b.Dist(1).(reweighted.Sampler)
		_, isLaw := b.Dist(1).(reweighted.LawSampler)
		require.Equal(t, b.MapExact(), isMap, "%s: a map-exact backend has Sample", b.Name)
		require.Equal(t, !b.MapExact(), isLaw, "%s: a law-exact backend has Draw and DrawBatch", b.Name)
		require.Contains(t, b.Guarantee(), map[bool]string{true: "map-exact", false: "law-exact"}[b.MapExact()])
	}
	require.Len(t, backends.Every(), len(backends.All)+len(backends.Law))
	require.Equal(t, len(backends.Every()), len(backends.Names()))
}
