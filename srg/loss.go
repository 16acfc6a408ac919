package srg

import (
	"fmt"
	"math"
)

// Loss is the per-example loss φ(t; y) of a generalised linear model: a
// function of the margin t = a_iᵀx and of the example's label y. Logistic
// and Squared implement it; a user type that implements it turns any convex
// margin loss into a Problem that Run, Solve and the step-size constants
// handle like the built-in ones.
//
// A Loss must be convex in t with a Lipschitz derivative: every constant
// Problem derives (L, Lmax, StrongConvexity), and with them the step sizes of
// the schedules, rests on the curvature bounds, so a bound that is too small
// lets the methods diverge. The methods must be safe for concurrent use
// (experiments run in parallel) and must not depend on anything but their
// arguments.
type Loss interface {
	// Value returns φ(t; y).
	Value(t, y float64) float64
	// Deriv returns ∂φ/∂t at (t; y). Every gradient is Deriv times the row.
	Deriv(t, y float64) float64
	// Curv returns ∂²φ/∂t² at (t; y). Solve's Newton steps use it; where φ'
	// has a kink, any value between its one-sided derivatives will do.
	Curv(t, y float64) float64
	// CurvBounds returns lo and hi with 0 ≤ lo ≤ Curv(t, y) ≤ hi for every
	// t and every label y that CheckLabel accepts: hi is the Lipschitz
	// constant of φ', lo its strong-convexity constant (0 if it has none).
	CurvBounds() (lo, hi float64)
	// CheckLabel returns an error if y is not a label this loss accepts
	// (NewProblem rejects the labels first if they are NaN or infinite).
	CheckLabel(y float64) error
}

// LogisticLoss is φ(t; y) = log(1 + exp(−yt)) with labels y in {−1, +1}:
// binary logistic regression. Its curvature lies in (0, 1/4].
type LogisticLoss struct{}

// SquaredLoss is φ(t; y) = (t − y)²/2 with real targets y: least squares.
// Its curvature is 1.
type SquaredLoss struct{}

// Logistic and Squared are the two built-in losses. Their types are empty
// structs, so these variables can never hold anything else.
var (
	Logistic = LogisticLoss{}
	Squared  = SquaredLoss{}
)

// Value returns log(1 + exp(−yt)), computed without overflow for either sign
// of yt.
func (LogisticLoss) Value(t, y float64) float64 {
	z := y * t
	return math.Log1p(math.Exp(-math.Abs(z))) + math.Max(-z, 0)
}

// Deriv returns −y·σ(−yt) = −y/(1 + exp(yt)).
func (LogisticLoss) Deriv(t, y float64) float64 {
	// exp overflows to +Inf harmlessly: the result is then −0 or +0.
	return -y / (1 + math.Exp(y*t))
}

// Curv returns σ(yt)(1 − σ(yt)).
func (LogisticLoss) Curv(t, y float64) float64 {
	s := 1 / (1 + math.Exp(-y*t))
	return s * (1 - s)
}

// CurvBounds returns 0 and 1/4: σ(1 − σ) has no positive lower bound.
func (LogisticLoss) CurvBounds() (lo, hi float64) { return 0, 0.25 }

// CheckLabel accepts −1 and +1 only.
func (LogisticLoss) CheckLabel(y float64) error {
	if y != 1 && y != -1 {
		return fmt.Errorf("logistic label %v, want ±1", y)
	}
	return nil
}

func (LogisticLoss) String() string { return "logistic" }

// Value returns (t − y)²/2.
func (SquaredLoss) Value(t, y float64) float64 {
	r := t - y
	return r * r / 2
}

// Deriv returns t − y.
func (SquaredLoss) Deriv(t, y float64) float64 { return t - y }

// Curv returns 1.
func (SquaredLoss) Curv(t, y float64) float64 { return 1 }

// CurvBounds returns 1 and 1.
func (SquaredLoss) CurvBounds() (lo, hi float64) { return 1, 1 }

// CheckLabel accepts every finite target.
func (SquaredLoss) CheckLabel(float64) error { return nil }

func (SquaredLoss) String() string { return "squared" }

// checkLoss validates a loss and the labels it will be used with.
func checkLoss(loss Loss, y []float64) error {
	if loss == nil {
		return fmt.Errorf("%w: nil loss", ErrInput)
	}
	lo, hi := loss.CurvBounds()
	if !(0 <= lo && lo <= hi) || math.IsInf(hi, 0) {
		return fmt.Errorf("%w: loss %v has curvature bounds [%v, %v], want 0 ≤ lo ≤ hi < ∞", ErrInput, loss, lo, hi)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: label y[%d] = %v", ErrInput, i, v)
		}
		if err := loss.CheckLabel(v); err != nil {
			return fmt.Errorf("%w: label y[%d]: %w", ErrInput, i, err)
		}
	}
	return nil
}
