// Package clock is the time services stamp on their records: UTC, to the
// microsecond, which is what a Postgres timestamptz keeps, so a write that
// answers with the record answers what a later read returns. It imports no
// database package: service and domain packages use it without depending
// on one.
package clock

import "time"

// Now is c's time (time.Now when c is nil) as a timestamptz stores it.
func Now(c func() time.Time) time.Time {
	if c == nil {
		c = time.Now
	}
	return c().UTC().Truncate(time.Microsecond)
}
