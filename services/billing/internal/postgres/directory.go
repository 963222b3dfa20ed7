package postgres

import "hookline.dev/services/billing/internal/ledger"

// view is the ledger.Directory of one group: the reservation rows and early
// settlements of the group's reservation ids, read when the group locks its
// accounts, plus what the group's decisions record. An optimistic group
// reads nothing: its writes fail, and the group reruns on the reading
// path, when a row it did not see exists (see Store.tx).
type view struct {
	owner    map[string]string
	early    map[string]earlySettlement
	earlyAdd []earlySettlement
	earlyDel []string
}

var _ ledger.Directory = (*view)(nil)

type earlySettlement struct {
	reservation, orgID, eventID string
	outcome                     ledger.Outcome
}

func newView() *view {
	return &view{owner: map[string]string{}, early: map[string]earlySettlement{}}
}

func (v *view) Owner(id string) string { return v.owner[id] }

func (v *view) Early(id string) (ledger.Outcome, bool) {
	e, ok := v.early[id]
	return e.outcome, ok
}

func (v *view) Reserved(id, account string) {
	v.owner[id] = account
	if _, ok := v.early[id]; ok {
		delete(v.early, id)
		v.earlyDel = append(v.earlyDel, id)
	}
}

func (v *view) ReportedEarly(id, account string, o ledger.Outcome, eventID string) {
	e := earlySettlement{reservation: id, orgID: account, outcome: o, eventID: eventID}
	v.early[id] = e
	v.earlyAdd = append(v.earlyAdd, e)
}
