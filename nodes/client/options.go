package client

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// GetOptions are the options of Get, as metav1.GetOptions.
type GetOptions struct {
	// ResourceVersion: "" reads from etcd (quorum), "0" from the server's
	// cache however stale, anything else not older than it.
	ResourceVersion string
}

// ListOptions are the options of List and Watch, as metav1.ListOptions.
type ListOptions struct {
	// LabelSelector filters by labels, in string form ("app=web").
	LabelSelector string
	// ResourceVersion follows the rules of GetOptions for a list; for a
	// watch it is the revision to resume after ("" or "0": the current
	// state first, as synthetic ADDED events).
	ResourceVersion string
	// ResourceVersionMatch says how ResourceVersion applies to a list
	// (apiwire.ResourceVersionMatchNotOlderThan or
	// apiwire.ResourceVersionMatchExact; "" for the legacy rules).
	ResourceVersionMatch string
	// Limit caps a list (0: no limit); Continue resumes a paged list.
	Limit    int64
	Continue string
	// AllowWatchBookmarks asks a watch for BOOKMARK events.
	AllowWatchBookmarks bool
}

// DeleteOptions are the options of Delete, as metav1.DeleteOptions.
type DeleteOptions struct {
	// Preconditions make the delete conditional on a UID or
	// resourceVersion.
	Preconditions *apiwire.Preconditions
	// GracePeriodSeconds overrides a pod's grace period; 0 deletes at once.
	GracePeriodSeconds *int64
}

// ObjectList is the result of List: the items and the revision they
// reflect, and a continue token when the list was cut short by Limit.
type ObjectList struct {
	Items           []model.Object
	ResourceVersion string
	Continue        string
}
