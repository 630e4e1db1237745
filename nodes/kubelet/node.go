package kubelet

import (
	"encoding/json"
	"reflect"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
)

// Node registration and status, as the kubelet's registerWithAPIServer and
// syncNodeStatus.
const (
	// registerInitialStep and registerMaxStep bound the registration
	// back-off: 100 ms doubling to 7 s.
	registerInitialStep = 100 * time.Millisecond
	registerMaxStep     = 7 * time.Second
	// nodeStatusUpdateRetry is how many times one sync tries to post.
	nodeStatusUpdateRetry = 5
)

// Node condition reasons and messages, as the kubelet sets them.
var kubeletNodeConditions = []model.NodeCondition{
	{Type: model.NodeMemoryPressure, Status: model.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
	{Type: model.NodeDiskPressure, Status: model.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"},
	{Type: model.NodePIDPressure, Status: model.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"},
	{Type: model.NodeReady, Status: model.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
}

// nodeState is the process's view of its Node.
type nodeState struct {
	step       time.Duration
	uid        model.UID
	lastReport sim.Time
}

// startNodeRegistration registers the Node: Create, or, when it exists,
// bring its status up to date; retried with back-off until it succeeds.
func (p *process) startNodeRegistration() {
	p.node.step = registerInitialStep
	p.after(p.node.step, "kubelet-register", p.tryRegister)
}

func (p *process) retryRegister() {
	p.node.step = min(2*p.node.step, registerMaxStep)
	p.after(p.node.step, "kubelet-register", p.tryRegister)
}

func (p *process) tryRegister() {
	node := &model.Node{ObjectMeta: model.ObjectMeta{Name: p.cfg.Node,
		Labels: map[string]string{"kubernetes.io/hostname": p.cfg.Node, "kubernetes.io/os": "linux"}}}
	p.setNodeStatus(node)
	p.client.Nodes().Create(node, func(obj model.Object, err error) {
		if p.stopped {
			return
		}
		switch {
		case err == nil:
			p.handleRegistered(obj)
		case client.IsAlreadyExists(err):
			p.reconcileExistingNode()
		default:
			p.retryRegister()
		}
	})
}

// reconcileExistingNode updates the status of a Node that already exists
// (a restarted kubelet, a rebooted host).
func (p *process) reconcileExistingNode() {
	nodes := p.client.Nodes()
	nodes.Get(p.cfg.Node, client.GetOptions{}, func(obj model.Object, err error) {
		if p.stopped {
			return
		}
		cur, ok := obj.(*model.Node)
		if err != nil || !ok {
			p.retryRegister()
			return
		}
		p.setNodeStatus(cur)
		nodes.UpdateStatus(cur, func(obj model.Object, err error) {
			if p.stopped {
				return
			}
			if err != nil {
				p.retryRegister()
				return
			}
			p.handleRegistered(obj)
		})
	})
}

func (p *process) handleRegistered(obj model.Object) {
	p.node.uid = obj.GetObjectMeta().UID
	p.node.lastReport = p.h.Now()
	p.scheduleNodeStatus()
}

// scheduleNodeStatus arms the next node status sync
// (nodeStatusUpdateFrequency, jittered by 4% as the kubelet's loop).
func (p *process) scheduleNodeStatus() {
	p.after(jittered(p.cfg.NodeStatusUpdateFrequency, p.statusRnd), "kubelet-node-status", func() { p.tryUpdateNodeStatus(0) })
}

// setNodeStatus sets what the kubelet reports of its node: capacity,
// allocatable, addresses and conditions, each condition's heartbeat now
// (its transition time kept while its status holds).
func (p *process) setNodeStatus(node *model.Node) {
	now := model.Time(p.h.WallClock())
	node.Status.Capacity = p.cfg.Capacity.DeepCopy()
	node.Status.Allocatable = p.cfg.Capacity.DeepCopy()
	node.Status.Addresses = []model.NodeAddress{{Type: "InternalIP", Address: p.nodeIP}, {Type: "Hostname", Address: p.cfg.Node}}
	for _, c := range kubeletNodeConditions {
		c.LastHeartbeatTime, c.LastTransitionTime = now, now
		model.SetNodeCondition(&node.Status, c)
	}
}

// nodeStatusChanged compares two node statuses ignoring heartbeat times,
// as nodeStatusHasChanged.
func nodeStatusChanged(a, b *model.NodeStatus) bool {
	if reflect.DeepEqual(a, b) {
		return false // equal values encode equally; the common case, without encoding
	}
	strip := func(s *model.NodeStatus) []byte {
		cp := *s
		cp.Conditions = append([]model.NodeCondition(nil), s.Conditions...)
		for i := range cp.Conditions {
			cp.Conditions[i].LastHeartbeatTime = 0
		}
		out, _ := json.Marshal(&cp)
		return out
	}
	return string(strip(a)) != string(strip(b))
}

// tryUpdateNodeStatus is one try of the node status sync: read the Node
// (the first try from the API server's cache, later ones from etcd),
// compute its status, and post it when it changed or when
// nodeStatusReportFrequency passed since the last post.
func (p *process) tryUpdateNodeStatus(try int) {
	if try >= nodeStatusUpdateRetry {
		p.scheduleNodeStatus()
		return
	}
	opts := client.GetOptions{}
	if try == 0 {
		opts.ResourceVersion = "0"
	}
	nodes := p.hbClient.Nodes()
	nodes.Get(p.cfg.Node, opts, func(obj model.Object, err error) {
		if p.stopped {
			return
		}
		orig, ok := obj.(*model.Node)
		if err != nil || !ok {
			p.tryUpdateNodeStatus(try + 1)
			return
		}
		node := orig.DeepCopy()
		p.setNodeStatus(node)
		now := p.h.Now()
		if now < p.node.lastReport.Add(p.cfg.NodeStatusReportFrequency) && !nodeStatusChanged(&orig.Status, &node.Status) {
			p.scheduleNodeStatus()
			return
		}
		nodes.UpdateStatus(node, func(_ model.Object, err error) {
			if p.stopped {
				return
			}
			if err != nil {
				p.tryUpdateNodeStatus(try + 1)
				return
			}
			p.node.lastReport = now
			p.scheduleNodeStatus()
		})
	})
}
