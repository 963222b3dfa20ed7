// Package e2e runs the built services as processes, wired as in a
// deployment, and drives them through the gateway's public HTTP API.
package e2e
