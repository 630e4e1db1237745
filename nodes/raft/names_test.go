package raft

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Traces and test failures name message types and roles; a value outside
// the enum (a corrupt or newer message) prints its number instead of
// panicking, as go.etcd.io/raft raftpb's enum String does for unknown
// values (proto.EnumName falls back to the number).
func TestMessageTypeAndRoleNames(t *testing.T) {
	assert.Equal(t, "MsgHup", MsgHup.String())
	assert.Equal(t, "MsgApp", MsgApp.String())
	assert.Equal(t, "MsgReadIndexResp", MsgReadIndexResp.String(), "the last type")
	assert.Equal(t, "MessageType(16)", numMessageTypes.String())
	assert.Equal(t, "MessageType(200)", MessageType(200).String())

	assert.Equal(t, "Follower", Follower.String())
	assert.Equal(t, "Leader", Leader.String(), "the last role")
	assert.Equal(t, "Role(4)", Role(4).String())
}
