//go:build race

package eval_test

// raceEnabled tells whether the test binary runs under the race detector.
const raceEnabled = true
