package messaging

import "expvar"

// Process-wide counters, published through expvar (/debug/vars) so every
// service exposes them without wiring. They are package variables because
// expvar names are global: a second registration would panic.
var (
	deadLettered    = expvar.NewInt("messaging_dead_lettered")
	redelivered     = expvar.NewInt("messaging_redelivered")
	relayPublished  = expvar.NewInt("messaging_relay_published")
	relayDuplicates = expvar.NewInt("messaging_relay_duplicates")
	relayForced     = expvar.NewInt("messaging_relay_forced")
)

// DeadLettered is the number of messages this process sent to a dead-letter
// subject.
func DeadLettered() int64 { return deadLettered.Value() }

// Redelivered is the number of deliveries this process received that were
// not the first delivery of their message.
func Redelivered() int64 { return redelivered.Value() }

// RelayPublished is the number of outbox rows this process's relays
// published and saw acknowledged.
func RelayPublished() int64 { return relayPublished.Value() }

// RelayDuplicates is the number of relay publishes the stream recognised as
// duplicates (a re-publish after a crash between publish and delete).
func RelayDuplicates() int64 { return relayDuplicates.Value() }

// RelayForced is the number of rows published out of txid order because an
// older transaction stayed open longer than Relay.MaxHold.
func RelayForced() int64 { return relayForced.Value() }
