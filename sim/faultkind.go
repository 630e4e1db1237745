package sim

// FaultKind names what a fault does.
type FaultKind string

// The fault kinds. Targets name hosts, "*" for all, or names that a
// scenario's Resolver understands (such as "etcd-leader"), resolved when the
// fault fires.
const (
	// FaultCrash crashes the targets; with For set they restart after it.
	FaultCrash FaultKind = "crash"
	// FaultTorn crashes the targets mid-write: their last unsynced write is
	// torn. With For set they restart after it.
	FaultTorn FaultKind = "torn"
	// FaultWipe crashes the targets and loses their whole disk (amnesia).
	// With For set they restart, empty, after it.
	FaultWipe FaultKind = "wipe"
	// FaultRestart restarts crashed targets.
	FaultRestart FaultKind = "restart"
	// FaultPause freezes the targets, for For or until the end.
	FaultPause FaultKind = "pause"
	// FaultPartition splits the hosts into groups separated by '|'.
	FaultPartition FaultKind = "partition"
	// FaultOneWay cuts the links from the first group to the second ('>').
	FaultOneWay FaultKind = "oneway"
	// FaultIsolate cuts each target off from every other host.
	FaultIsolate FaultKind = "isolate"
	// FaultFlaky degrades every link touching the targets with Loss, Dup,
	// Delay and Reorder.
	FaultFlaky FaultKind = "flaky"
	// FaultHeal removes every cut and flaky overlay.
	FaultHeal FaultKind = "heal"
	// FaultRestartProcess restarts the process named Process on each
	// running target, like `systemctl restart kubelet`: the host, its disk
	// and its other processes stay up (see Host.OnProcessRestart).
	FaultRestartProcess FaultKind = "restart-process"
	// FaultClockDrift makes the targets' clocks run at Rate local seconds
	// per virtual second (1.05: 5% fast), for For or until the end: their
	// timers fire early or late, their timestamps drift apart. The skew it
	// leaves stays after it ends (see Host.Now).
	FaultClockDrift FaultKind = "clock-drift"
	// FaultClockJump steps the targets' wall clocks by By, forward or
	// back (an NTP step, a VM resumed): timestamps jump; timers and
	// elapsed time, on the monotonic clock, do not (see Host.WallClock).
	FaultClockJump FaultKind = "clock-jump"
	// FaultSlowDisk makes every fsync the targets issue take Fsync (plus
	// the disk's jitter), for For or until the end: a saturated or failing
	// disk. A member's apply waits for its fsync, so it lags too.
	FaultSlowDisk FaultKind = "slow-disk"
)

// FaultKinds lists every kind, in the order the documentation gives them.
var FaultKinds = []FaultKind{FaultCrash, FaultTorn, FaultWipe, FaultRestart, FaultPause,
	FaultPartition, FaultOneWay, FaultIsolate, FaultFlaky, FaultHeal, FaultRestartProcess,
	FaultClockDrift, FaultClockJump, FaultSlowDisk}

// kindInfo is everything callers ask of a kind, in one table.
type kindInfo struct {
	groups int    // target groups: exact count, 0 for "two or more" (partition), -1 for none
	sep    string // printed between groups
	// crashes: the kind takes its targets down until a "restart" event.
	crashes bool
	// cuts: the kind cuts links until its "-healed" event or a heal.
	cuts bool
	// network: the kind changes links, so that a heal undoes it.
	network bool
	// window: the kind's event opens a fault window on its host that a
	// later event closes (see EndEvent).
	window bool
	// instant: the kind acts at once and takes no "for".
	instant bool
}

var kindInfos = map[FaultKind]kindInfo{
	FaultCrash:          {groups: 1, crashes: true, window: true},
	FaultTorn:           {groups: 1, crashes: true, window: true},
	FaultWipe:           {groups: 1, crashes: true, window: true},
	FaultRestart:        {groups: 1},
	FaultPause:          {groups: 1, window: true},
	FaultPartition:      {groups: 0, sep: "|", cuts: true, network: true, window: true},
	FaultOneWay:         {groups: 2, sep: ">", cuts: true, network: true, window: true},
	FaultIsolate:        {groups: 1, cuts: true, network: true, window: true},
	FaultFlaky:          {groups: 1, network: true, window: true},
	FaultHeal:           {groups: -1},
	FaultRestartProcess: {groups: 1, instant: true},
	FaultClockDrift:     {groups: 1, window: true},
	FaultClockJump:      {groups: 1, instant: true},
	FaultSlowDisk:       {groups: 1, window: true},
}

// Known reports whether k is a fault kind.
func (k FaultKind) Known() bool { _, ok := kindInfos[k]; return ok }

// CrashesHost reports whether k takes its targets down (crash, torn, wipe):
// the host is down until a "restart" event, and the crash ends a pause
// (the host restarts running; no "resume" is traced for it).
func (k FaultKind) CrashesHost() bool { return kindInfos[k].crashes }

// CutsLinks reports whether k cuts links (partition, oneway, isolate).
func (k FaultKind) CutsLinks() bool { return kindInfos[k].cuts }

// Network reports whether k changes links (the cuts and flaky): what a
// heal undoes.
func (k FaultKind) Network() bool { return kindInfos[k].network }

// StartsWindow reports whether k's event opens a fault window on its host,
// which the event named EndEvent closes; a kind that does not (restart,
// heal, restart-process, clock-jump) acts at once.
func (k FaultKind) StartsWindow() bool { return kindInfos[k].window }

// Heals reports whether k undoes other faults: a restart ends a crash, a
// heal every network fault.
func (k FaultKind) Heals() bool { return k == FaultRestart || k == FaultHeal }
