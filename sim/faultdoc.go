package sim

// FaultKindDoc is what the documentation says of a fault kind: what it
// does, an example line of the text form, and its parameters. The
// reference page of fault schedules (docs/faults.md) is generated from
// DescribeFaultKinds, and a test parses every example back.
type FaultKindDoc struct {
	Kind    FaultKind
	Does    string
	Example string
	// Params are the kind's key=value parameters, in the order printed.
	Params []FaultParamDoc
	// Lasts says the fault lasts ("for", or until the end of the run);
	// otherwise it acts at once.
	Lasts bool
}

// FaultParamDoc is one parameter of a kind.
type FaultParamDoc struct {
	Key, Type string
	Required  bool
}

// faultDocs says what each kind does, in documentation order.
var faultDocs = map[FaultKind][2]string{
	FaultCrash:          {"crash the targets (power off: volatile state and unsynced writes are lost); with for, restart them after it", "10s crash etcd-1 for 5s"},
	FaultTorn:           {"crash the targets mid-write: the last unsynced write is torn, not lost whole", "12s torn etcd-2 for 1s"},
	FaultWipe:           {"crash the targets and lose their whole disk (amnesia); with for, restart them empty", "15s wipe etcd-3 for 10s"},
	FaultRestart:        {"restart crashed targets", "20s restart etcd-1"},
	FaultPause:          {"freeze the targets (SIGSTOP, a long GC pause, a VM stall): their timers and deliveries wait", "40s pause etcd-leader for 2s"},
	FaultPartition:      {"split the hosts into groups that cannot reach each other (groups separated by |; a host on one side only)", "20s partition etcd-1,etcd-2|etcd-3,etcd-4,etcd-5 for 30s"},
	FaultOneWay:         {"cut the links from the first group to the second only", "25s oneway etcd-1>etcd-3 for 2s"},
	FaultIsolate:        {"cut each target off from every other host", "30s isolate etcd-4 for 3s"},
	FaultFlaky:          {"degrade every link touching the targets: loss, duplication, reordering, extra delay", "58s flaky * for 10s loss=0.2 dup=0.05 reorder=0.1 delay=5ms"},
	FaultHeal:           {"remove every cut and flaky overlay", "59s heal"},
	FaultRestartProcess: {"restart one process on each running target, as systemctl restart does: the host, its disk and its other processes stay up", "40s restart-process node-3 process=kubelet"},
	FaultClockDrift:     {"make the targets' clocks run at rate local seconds per second: their timers fire early or late, and the skew built up stays after the drift ends", "50s clock-drift etcd-2 for 40s rate=1.05"},
	FaultClockJump:      {"step the targets' wall clocks (an NTP step, a VM resumed): timestamps jump, timers and measured durations do not", "55s clock-jump node-1 by=-30s"},
	FaultSlowDisk:       {"make every fsync the targets issue take fsync (plus the disk's jitter): a saturated or failing disk; a member's apply waits for it", "45s slow-disk etcd-3 for 20s fsync=200ms"},
}

// DescribeFaultKinds documents every kind, in FaultKinds order.
func DescribeFaultKinds() []FaultKindDoc {
	out := make([]FaultKindDoc, len(FaultKinds))
	for i, k := range FaultKinds {
		d := FaultKindDoc{Kind: k, Does: faultDocs[k][0], Example: faultDocs[k][1], Lasts: kindInfos[k].window}
		for _, p := range faultParams {
			if p.kind == k {
				d.Params = append(d.Params, FaultParamDoc{Key: p.key, Type: p.typ.String(), Required: p.required})
			}
		}
		out[i] = d
	}
	return out
}
