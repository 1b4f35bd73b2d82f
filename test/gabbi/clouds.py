"""The clouds and environment variables of Placement 8.0.0's gabbi fixtures.

Each fixture class of placement/tests/functional/fixtures/gabbits.py (tag 8.0.0) is written here
as the same sequence of steps, on a `Cloud` that records them. From that record the harness
either replays the steps through Placement's REST API, in the same order, or writes the final
state as a placement-gql snapshot. The steps keep what Placement's object layer does, which the
fixtures use directly and which differs from the REST API in places:

- a provider starts at generation 0; each added inventory and each set of traits adds 1, and an
  allocation adds 1 to every provider it uses; setting aggregates adds nothing (the REST API
  adds 1 from microversion 1.19 on, so the replay sets them at 1.1);
- `add_inventory` sets max_unit to the total unless told otherwise (the REST API's default is
  2147483647);
- consumers are created without a consumer type (the REST API asks for one from 1.38 on, so the
  replay allocates at 1.28) and reach generation 1 with their one allocation;
- uuids are new for every run, as the fixtures' uuidutils.generate_uuid() and uuidsentinel make
  them; custom classes and traits are created when first used.
"""
import random
import uuid as uuidlib

INT_MAX = 2147483647


class Cloud:
    def __init__(self, rng):
        self._rng = rng
        self._sentinels = {}
        self.env = {}
        self.steps = []
        self.providers = {}          # uuid -> {name, parent, generation}
        self.inventories = {}        # uuid -> {rc: fields}
        self.traits = {}             # uuid -> [trait]
        self.aggregates = {}         # uuid -> [agg]
        self.allocations = {}        # consumer -> {rp: {rc: used}}
        self.consumers = {}          # consumer -> {project_id, user_id, generation}
        self.custom_classes = []
        self.custom_traits = []
        self.cors = None             # [cors] options of the service, for CORSFixture
        self.policy = 'default'      # the policy fixtures: 'open' (every rule '@'), 'secure' (scope and new defaults)

    # uuidutils.generate_uuid() and uuidsentinel, from one seeded stream when asked to be reproducible
    def new_uuid(self):
        return str(uuidlib.UUID(int=self._rng.getrandbits(128), version=4))

    def sentinel(self, name):
        if name not in self._sentinels:
            self._sentinels[name] = self.new_uuid()
        return self._sentinels[name]

    # placement.tests.functional.db.test_base, step for step
    def create_provider(self, name, *aggs, uuid=None, parent=None):
        uuid = uuid or self.sentinel(name)
        self.providers[uuid] = {'name': name, 'parent': parent, 'generation': 0}
        self.steps.append(('provider', uuid, name, parent))
        if aggs:
            self.set_aggregates(uuid, list(aggs))
        return uuid

    def set_aggregates(self, rp, aggs):
        self.aggregates[rp] = list(dict.fromkeys(aggs))
        self.steps.append(('aggregates', rp, list(self.aggregates[rp])))

    def create_resource_class(self, name):
        self.custom_classes.append(name)
        self.steps.append(('resource_class', name))

    def ensure_rc(self, name):
        if name.startswith('CUSTOM_') and name not in self.custom_classes:
            self.create_resource_class(name)

    def add_inventory(self, rp, rc, total, **kwargs):
        self.ensure_rc(rc)
        fields = {'total': total, 'reserved': kwargs.get('reserved', 0),
                  'min_unit': kwargs.get('min_unit', 1), 'max_unit': kwargs.get('max_unit', total),
                  'step_size': kwargs.get('step_size', 1),
                  'allocation_ratio': float(kwargs.get('allocation_ratio', 1.0))}
        self.inventories.setdefault(rp, {})[rc] = fields
        self.providers[rp]['generation'] += 1
        self.steps.append(('inventory', rp, rc, dict(fields)))

    def set_traits(self, rp, *traits):
        for name in traits:
            if name.startswith('CUSTOM_') and name not in self.custom_traits:
                self.custom_traits.append(name)
                self.steps.append(('trait', name))
        self.traits[rp] = list(traits)
        self.providers[rp]['generation'] += 1
        self.steps.append(('traits', rp, list(traits)))

    def set_allocation(self, rp, consumer, used):
        """tb.ensure_consumer (a new random consumer) then tb.set_allocation, as the fixtures call them."""
        cid, user, project = consumer
        # No consumer type (null in the snapshot): the fixtures write consumers as before microversion 1.38.
        self.consumers[cid] = {'project_id': project, 'user_id': user, 'consumer_type': None, 'generation': 1}
        self.allocations[cid] = {rp: dict(used)}
        self.providers[rp]['generation'] += 1
        self.steps.append(('allocation', cid, project, user, rp, dict(used)))

    def new_consumer(self, user, project):
        return (self.new_uuid(), user, project)

    def snapshot(self):
        """The cloud as a placement-gql snapshot (DESIGN.md "Snapshot format"), generations included."""
        return {
            'providers': [{'uuid': u, 'name': p['name'], 'parent': p['parent'], 'generation': p['generation']}
                          for u, p in self.providers.items()],
            'inventories': self.inventories,
            'traits': self.traits,
            'aggregates': self.aggregates,
            'allocations': self.allocations,
            'consumers': self.consumers,
            'resource_classes': self.custom_classes,
            'custom_traits': self.custom_traits,
        }


# ---- the fixture classes -------------------------------------------------------------------

def api_fixture(c):
    c.env.update({
        'RP_UUID': c.new_uuid(), 'RP_NAME': c.new_uuid(), 'CUSTOM_RES_CLASS': 'CUSTOM_IRON_NFV',
        'PROJECT_ID': c.new_uuid(), 'USER_ID': c.new_uuid(),
        'PROJECT_ID_ALT': c.new_uuid(), 'USER_ID_ALT': c.new_uuid(),
        'INSTANCE_UUID': c.new_uuid(), 'MIGRATION_UUID': c.new_uuid(), 'CONSUMER_UUID': c.new_uuid(),
        'PARENT_PROVIDER_UUID': c.new_uuid(), 'ALT_PARENT_PROVIDER_UUID': c.new_uuid(),
    })


def allocation_fixture(c):
    api_fixture(c)
    e = c.env
    e['ALT_USER_ID'] = c.new_uuid()
    project, user, alt_user = e['PROJECT_ID'], e['USER_ID'], e['ALT_USER_ID']
    rp = c.create_provider(e['RP_NAME'], uuid=e['RP_UUID'])
    c.add_inventory(rp, 'DISK_GB', 2048, step_size=10, min_unit=10, max_unit=1000)
    c.add_inventory(rp, 'VCPU', 10, max_unit=10)
    consumer1 = c.new_consumer(user, project)
    c.set_allocation(rp, consumer1, {'DISK_GB': 1000})
    e['CONSUMER_0'] = consumer1[0]
    consumer2 = c.new_consumer(user, project)
    c.set_allocation(rp, consumer2, {'VCPU': 6})
    e['CONSUMER_ID'] = consumer2[0]
    alt_consumer = c.new_consumer(alt_user, project)
    e['ALT_CONSUMER_ID'] = alt_consumer[0]
    c.set_allocation(rp, alt_consumer, {'DISK_GB': 20, 'VCPU': 1})
    e['ALT_RP_UUID'] = c.new_uuid()
    e['ALT_RP_NAME'] = c.new_uuid()


def shared_storage_fixture(c):
    api_fixture(c)
    e = c.env
    agg = c.new_uuid()
    cn1 = c.create_provider('cn1', agg)
    cn2 = c.create_provider('cn2', agg)
    ss = c.create_provider('ss', agg)
    ss2 = c.create_provider('ss2', agg)
    numa1_1 = c.create_provider('numa1_1', parent=cn1)
    numa1_2 = c.create_provider('numa1_2', parent=cn1)
    numa2_1 = c.create_provider('numa2_1', parent=cn2)
    numa2_2 = c.create_provider('numa2_2', parent=cn2)
    pf1_1 = c.create_provider('pf1_1', parent=numa1_1)
    pf1_2 = c.create_provider('pf1_2', parent=numa1_2)
    pf2_1 = c.create_provider('pf2_1', parent=numa2_1)
    pf2_2 = c.create_provider('pf2_2', parent=numa2_2)
    e.update({'AGG_UUID': agg, 'CN1_UUID': cn1, 'CN2_UUID': cn2, 'SS_UUID': ss, 'SS2_UUID': ss2,
              'NUMA1_1_UUID': numa1_1, 'NUMA1_2_UUID': numa1_2, 'NUMA2_1_UUID': numa2_1,
              'NUMA2_2_UUID': numa2_2, 'PF1_1_UUID': pf1_1, 'PF1_2_UUID': pf1_2,
              'PF2_1_UUID': pf2_1, 'PF2_2_UUID': pf2_2})
    for cn in (cn1, cn2):
        c.add_inventory(cn, 'VCPU', 24, allocation_ratio=16.0)
        c.add_inventory(cn, 'MEMORY_MB', 128 * 1024, allocation_ratio=1.5)
    c.set_traits(cn1, 'HW_CPU_X86_SSE', 'HW_CPU_X86_SSE2')
    c.add_inventory(cn2, 'DISK_GB', 2000, reserved=100, allocation_ratio=1.0)
    for shared in (ss, ss2):
        c.add_inventory(shared, 'DISK_GB', 2000, reserved=100, allocation_ratio=1.0)
        c.set_traits(shared, 'MISC_SHARES_VIA_AGGREGATE')
    for pf in (pf1_1, pf1_2, pf2_1, pf2_2):
        c.add_inventory(pf, 'SRIOV_NET_VF', 8, allocation_ratio=1.0)


def numa_aggregate_fixture(c):
    api_fixture(c)
    e = c.env
    agg_a, agg_b, agg_c = c.new_uuid(), c.new_uuid(), c.new_uuid()
    cn1 = c.create_provider('cn1', agg_a)
    cn2 = c.create_provider('cn2', agg_a, agg_b)
    ss1 = c.create_provider('ss1', agg_a)
    ss2 = c.create_provider('ss2', agg_c)
    numa1_1 = c.create_provider('numa1_1', agg_c, parent=cn1)
    numa1_2 = c.create_provider('numa1_2', parent=cn1)
    numa2_1 = c.create_provider('numa2_1', parent=cn2)
    numa2_2 = c.create_provider('numa2_2', parent=cn2)
    e.update({'AGGA_UUID': agg_a, 'AGGB_UUID': agg_b, 'AGGC_UUID': agg_c,
              'CN1_UUID': cn1, 'CN2_UUID': cn2, 'SS1_UUID': ss1, 'SS2_UUID': ss2,
              'NUMA1_1_UUID': numa1_1, 'NUMA1_2_UUID': numa1_2,
              'NUMA2_1_UUID': numa2_1, 'NUMA2_2_UUID': numa2_2})
    for numa in (numa1_1, numa1_2, numa2_1, numa2_2):
        c.add_inventory(numa, 'VCPU', 24, allocation_ratio=16.0)
    for ss in (ss1, ss2):
        c.add_inventory(ss, 'DISK_GB', 2000, reserved=100, allocation_ratio=1.0)
        c.set_traits(ss, 'MISC_SHARES_VIA_AGGREGATE')


def _numa_network_entities(c, cn1=None, cn2=None):
    e = c.env
    agg_a = c.new_uuid()
    e['AGGA_UUID'] = agg_a
    ss1 = c.create_provider('ss1', agg_a)
    c.set_traits(ss1, 'MISC_SHARES_VIA_AGGREGATE')
    c.add_inventory(ss1, 'DISK_GB', 2000)
    e['SS1_UUID'] = ss1
    if not cn1:
        cn1 = c.create_provider('cn1', agg_a)
    c.set_aggregates(cn1, [agg_a])
    c.set_traits(cn1, 'COMPUTE_VOLUME_MULTI_ATTACH')
    e['CN1_UUID'] = cn1
    numas = []
    for i in (0, 1):
        numa = c.create_provider('numa%d' % i, parent=cn1)
        traits = ['HW_NUMA_ROOT'] + (['CUSTOM_FOO'] if i == 1 else [])
        c.set_traits(numa, *traits)
        c.add_inventory(numa, 'VCPU', 4)
        numas.append(numa)
        e['NUMA%d_UUID' % i] = numa
    c.add_inventory(numas[0], 'MEMORY_MB', 2048, min_unit=512, step_size=256)
    c.add_inventory(numas[1], 'MEMORY_MB', 2048, min_unit=256, max_unit=1024)
    user, project = 'numafx-user', 'numafx-project'
    c.set_allocation(numas[0], c.new_consumer(user, project), {'VCPU': 2})
    fpga = c.create_provider('fpga0', parent=numas[0])
    c.add_inventory(fpga, 'CUSTOM_FPGA', 1)
    e['FPGA0_UUID'] = fpga
    pgpu = c.create_provider('pgpu0', parent=numas[0])
    c.add_inventory(pgpu, 'VGPU', 8)
    e['PGPU0_UUID'] = pgpu
    for i in (0, 1):
        fpga = c.create_provider('fpga1_%d' % i, parent=numas[1])
        c.add_inventory(fpga, 'CUSTOM_FPGA', 1)
        e['FPGA1_%d_UUID' % i] = fpga
    agent = c.create_provider('sriov_agent', parent=cn1)
    c.set_traits(agent, 'CUSTOM_VNIC_TYPE_DIRECT')
    e['SRIOV_AGENT_UUID'] = agent
    for i in (1, 2):
        dev = c.create_provider('esn%d' % i, parent=agent)
        c.set_traits(dev, 'CUSTOM_PHYSNET%d' % i)
        c.add_inventory(dev, 'NET_BW_EGR_KILOBIT_PER_SEC', 10000 * i)
        e['ESN%d_UUID' % i] = dev
    agent = c.create_provider('ovs_agent', parent=cn1)
    c.set_traits(agent, 'CUSTOM_VNIC_TYPE_NORMAL')
    e['OVS_AGENT_UUID'] = agent
    dev = c.create_provider('br_int', parent=agent)
    c.set_traits(dev, 'CUSTOM_PHYSNET0')
    c.add_inventory(dev, 'NET_BW_EGR_KILOBIT_PER_SEC', 1000)
    e['BR_INT_UUID'] = dev
    if not cn2:
        cn2 = c.create_provider('cn2')
    c.set_aggregates(cn2, [agg_a])
    c.add_inventory(cn2, 'VCPU', 8)
    c.set_allocation(cn2, c.new_consumer(user, project), {'VCPU': 3})
    c.add_inventory(cn2, 'MEMORY_MB', 2048, min_unit=1024, step_size=128)
    c.add_inventory(cn2, 'DISK_GB', 1000)
    c.set_traits(cn2, 'CUSTOM_FOO')
    e['CN2_UUID'] = cn2
    nics = []
    for i in (1, 2, 3):
        nic = c.create_provider('nic%d' % i, parent=cn2)
        c.set_traits(nic, 'CUSTOM_HW_NIC_ROOT')
        nics.append(nic)
        e['NIC%s_UUID' % i] = nic
    for i in (1, 2):
        suf = '1_%d' % i
        pf = c.create_provider('pf%s' % suf, parent=nics[0])
        c.set_traits(pf, 'CUSTOM_PHYSNET%d' % i)
        c.add_inventory(pf, 'CUSTOM_VF', 4)
        e['PF%s_UUID' % suf] = pf
    for i in (0, 1, 2, 3):
        suf = '2_%d' % (i + 1)
        pf = c.create_provider('pf%s' % suf, parent=nics[1])
        c.set_traits(pf, 'CUSTOM_PHYSNET%d' % ((i % 2) + 1))
        c.add_inventory(pf, 'CUSTOM_VF', 2)
        e['PF%s_UUID' % suf] = pf
    pf = c.create_provider('pf3_1', parent=nics[2])
    c.set_traits(pf, 'CUSTOM_PHYSNET1')
    c.add_inventory(pf, 'CUSTOM_VF', 8)
    e['PF3_1_UUID'] = pf


def numa_network_fixture(c):
    api_fixture(c)
    _numa_network_entities(c)


def deep_numa_network_fixture(c):
    api_fixture(c)
    gp1 = c.create_provider('gp1')
    p1 = c.create_provider('p1', parent=gp1)
    p2 = c.create_provider('p2', parent=gp1)
    cn1 = c.create_provider('cn1', parent=p1)
    cn2 = c.create_provider('cn2', parent=p2)
    _numa_network_entities(c, cn1, cn2)


def non_shared_storage_fixture(c):
    api_fixture(c)
    e = c.env
    e.update({'AGGA_UUID': c.new_uuid(), 'AGGB_UUID': c.new_uuid(), 'AGGC_UUID': c.new_uuid()})
    cns = [c.create_provider(name) for name in ('cn1', 'cn2', 'cn3')]
    e.update({'CN1_UUID': cns[0], 'CN2_UUID': cns[1], 'CN3_UUID': cns[2]})
    for cn in cns:
        c.add_inventory(cn, 'VCPU', 24)
        c.add_inventory(cn, 'MEMORY_MB', 128 * 1024)
        c.add_inventory(cn, 'DISK_GB', 2000)


def cors_fixture(c):
    api_fixture(c)
    c.cors = {'allowed_origin': 'http://valid.example.com', 'allow_headers': ['openstack-api-version']}


def open_policy_fixture(c):
    api_fixture(c)
    c.policy = 'open'


def secure_rbac_policy_fixture(c):
    api_fixture(c)
    c.policy = 'secure'


def granular_fixture(c):
    api_fixture(c)
    e = c.env
    c.create_resource_class('CUSTOM_NET_MBPS')
    agg_a, agg_b, agg_c = c.sentinel('aggA'), c.sentinel('aggB'), c.sentinel('aggC')
    e.update({'AGGA': agg_a, 'AGGB': agg_b, 'AGGC': agg_c})
    cn_left = c.create_provider('cn_left', agg_a)
    e['CN_LEFT'] = cn_left
    for rc, total in (('VCPU', 8), ('MEMORY_MB', 4096), ('DISK_GB', 500), ('VGPU', 8),
                      ('SRIOV_NET_VF', 8), ('CUSTOM_NET_MBPS', 4000)):
        c.add_inventory(cn_left, rc, total)
    c.set_traits(cn_left, 'HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2', 'HW_GPU_API_DXVA', 'HW_NIC_DCB_PFC', 'CUSTOM_FOO')
    cn_middle = c.create_provider('cn_middle', agg_a, agg_b)
    e['CN_MIDDLE'] = cn_middle
    for rc, total in (('VCPU', 8), ('MEMORY_MB', 4096), ('SRIOV_NET_VF', 8), ('CUSTOM_NET_MBPS', 4000)):
        c.add_inventory(cn_middle, rc, total)
    c.set_traits(cn_middle, 'HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE', 'HW_NIC_ACCEL_TLS')
    cn_right = c.create_provider('cn_right', agg_b, agg_c)
    e['CN_RIGHT'] = cn_right
    c.add_inventory(cn_right, 'VCPU', 8)
    c.add_inventory(cn_right, 'MEMORY_MB', 4096)
    c.add_inventory(cn_right, 'DISK_GB', 500)
    c.add_inventory(cn_right, 'VGPU', 8, max_unit=2)
    c.set_traits(cn_right, 'HW_CPU_X86_MMX', 'HW_GPU_API_DXVA', 'CUSTOM_DISK_SSD')
    shr_disk_1 = c.create_provider('shr_disk_1', agg_a)
    e['SHR_DISK_1'] = shr_disk_1
    c.add_inventory(shr_disk_1, 'DISK_GB', 1000)
    c.set_traits(shr_disk_1, 'MISC_SHARES_VIA_AGGREGATE', 'CUSTOM_DISK_SSD')
    shr_disk_2 = c.create_provider('shr_disk_2', agg_a, agg_b)
    e['SHR_DISK_2'] = shr_disk_2
    c.add_inventory(shr_disk_2, 'DISK_GB', 1000)
    c.set_traits(shr_disk_2, 'MISC_SHARES_VIA_AGGREGATE')
    shr_net = c.create_provider('shr_net', agg_c)
    e['SHR_NET'] = shr_net
    c.add_inventory(shr_net, 'SRIOV_NET_VF', 16)
    c.add_inventory(shr_net, 'CUSTOM_NET_MBPS', 40000)
    c.set_traits(shr_net, 'MISC_SHARES_VIA_AGGREGATE')


def neutron_qos_multi_segment_fixture(c):
    api_fixture(c)
    e = c.env
    vnic_direct = ('CUSTOM_VNIC_TYPE_DIRECT', 'CUSTOM_VNIC_TYPE_DIRECT_PHYSICAL', 'CUSTOM_VNIC_TYPE_MACVTAP')
    # compute0..2: one bridge and one PF each, on physnet OTHER, MSN_S1 and MSN_S2
    sriov_agents = {}
    for n, physnet in ((0, 'CUSTOM_PHYSNET_OTHER'), (1, 'CUSTOM_PHYSNET_MSN_S1'), (2, 'CUSTOM_PHYSNET_MSN_S2')):
        name = 'compute%d' % n
        compute = c.create_provider(name)
        e[name] = compute
        c.add_inventory(compute, 'VCPU', 8)
        c.add_inventory(compute, 'MEMORY_MB', 4096)
        c.add_inventory(compute, 'DISK_GB', 500)
        ovs = c.create_provider(name + ':Open vSwitch agent', parent=compute)
        e[name + ':ovs_agent'] = ovs
        c.add_inventory(ovs, 'NET_PACKET_RATE_KILOPACKET_PER_SEC', 1000)
        c.set_traits(ovs, 'CUSTOM_VNIC_TYPE_NORMAL')
        br_ex = c.create_provider(name + ':Open vSwitch agent:br-ex', parent=ovs)
        e[name + ':br_ex'] = br_ex
        c.add_inventory(br_ex, 'NET_BW_EGR_KILOBIT_PER_SEC', 5000)
        c.add_inventory(br_ex, 'NET_BW_IGR_KILOBIT_PER_SEC', 5000)
        c.set_traits(br_ex, 'CUSTOM_VNIC_TYPE_NORMAL', physnet)
        sriov = c.create_provider(name + ':NIC Switch agent', parent=compute)
        e[name + ':sriov_agent'] = sriov
        sriov_agents[n] = sriov
        c.set_traits(sriov, *vnic_direct)
        pf0 = c.create_provider(name + ':NIC Switch agent:enp129s0f0', parent=sriov)
        e[name + ':pf0'] = pf0
        c.add_inventory(pf0, 'NET_BW_EGR_KILOBIT_PER_SEC', 10000)
        c.add_inventory(pf0, 'NET_BW_IGR_KILOBIT_PER_SEC', 10000)
        c.set_traits(pf0, *vnic_direct, physnet)
    # compute3: two bridges and two PFs, one per segment, with little bandwidth
    compute3 = c.create_provider('compute3')
    e['compute3'] = compute3
    c.add_inventory(compute3, 'VCPU', 8)
    c.add_inventory(compute3, 'MEMORY_MB', 4096)
    c.add_inventory(compute3, 'DISK_GB', 500)
    ovs = c.create_provider('compute3:Open vSwitch agent', parent=compute3)
    e['compute3:ovs_agent'] = ovs
    c.add_inventory(ovs, 'NET_PACKET_RATE_KILOPACKET_PER_SEC', 1000)
    c.set_traits(ovs, 'CUSTOM_VNIC_TYPE_NORMAL')
    for key, suffix, physnet in (('br_ex', 'br-ex', 'CUSTOM_PHYSNET_MSN_S1'), ('br_ex2', 'br-ex2', 'CUSTOM_PHYSNET_MSN_S2')):
        br = c.create_provider('compute3:Open vSwitch agent:' + suffix, parent=ovs)
        e['compute3:' + key] = br
        c.add_inventory(br, 'NET_BW_EGR_KILOBIT_PER_SEC', 1000)
        c.add_inventory(br, 'NET_BW_IGR_KILOBIT_PER_SEC', 1000)
        c.set_traits(br, 'CUSTOM_VNIC_TYPE_NORMAL', physnet)
    sriov = c.create_provider('compute3:NIC Switch agent', parent=compute3)
    # As the fixture does: compute3's variable names compute2's agent (no test uses it).
    e['compute3:sriov_agent'] = sriov_agents[2]
    c.set_traits(sriov, *vnic_direct)
    for key, suffix, physnet in (('pf0', 'enp129s0f0', 'CUSTOM_PHYSNET_MSN_S1'), ('pf1', 'enp129s0f1', 'CUSTOM_PHYSNET_MSN_S2')):
        pf = c.create_provider('compute3:NIC Switch agent:' + suffix, parent=sriov)
        e['compute3:' + key] = pf
        c.add_inventory(pf, 'NET_BW_EGR_KILOBIT_PER_SEC', 1000)
        c.add_inventory(pf, 'NET_BW_IGR_KILOBIT_PER_SEC', 1000)
        c.set_traits(pf, *vnic_direct, physnet)


# The fixture classes of fixtures/gabbits.py. The policy fixtures only change Placement's policy
# configuration (their files are not run by default); their cloud is APIFixture's, and
# LegacyRBACPolicyFixture is APIFixture itself.
FIXTURES = {
    'APIFixture': api_fixture,
    'AllocationFixture': allocation_fixture,
    'SharedStorageFixture': shared_storage_fixture,
    'NUMAAggregateFixture': numa_aggregate_fixture,
    'NUMANetworkFixture': numa_network_fixture,
    'DeepNUMANetworkFixture': deep_numa_network_fixture,
    'NonSharedStorageFixture': non_shared_storage_fixture,
    'CORSFixture': cors_fixture,
    'GranularFixture': granular_fixture,
    'NeutronQoSMultiSegmentFixture': neutron_qos_multi_segment_fixture,
    'OpenPolicyFixture': open_policy_fixture,
    'SecureRBACPolicyFixture': secure_rbac_policy_fixture,
    'LegacyRBACPolicyFixture': api_fixture,
}
POLICY_FIXTURES = {'OpenPolicyFixture', 'SecureRBACPolicyFixture', 'LegacyRBACPolicyFixture'}


def build(fixture_names, seed=None):
    """The cloud and environment variables of a gabbi file's fixtures (new uuids unless seeded)."""
    cloud = Cloud(random.Random(seed) if seed is not None else random.SystemRandom())
    for name in fixture_names:
        if name not in FIXTURES:
            raise KeyError('unknown gabbi fixture %s' % name)
        FIXTURES[name](cloud)
    return cloud
