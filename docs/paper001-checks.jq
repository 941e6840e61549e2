# Per-host means of a `snooplab sweep --json` of paper 001's preset, one line per protocol and
# error rate (docs/paper001.md, "What we checked"). ack_loss_mac: the access point's frames (the
# ACKs) lost to collisions or dropped after 15 failed attempts, per frame it sent.
.runs | group_by([.protocol, .error_every_bytes])[] |
  (map(.flows | length) | add) as $fl |
  { protocol: .[0].protocol, error_every: .[0].error_every_bytes, runs: length,
    timeouts: ((map(.flows[].timeouts) | add) / $fl * 100 | round / 100),
    fast_retransmits: ((map(.flows[].fast_retransmits) | add) / $fl * 100 | round / 100),
    retransmitted: ((map(.flows[].sender_retransmitted_segments) | add) / $fl * 100 | round / 100),
    n_dup: [range(4) as $i | ((map(.flows[].timeouts_after_dupacks[$i]) | add) / $fl * 100 | round / 100)],
    stall_per_timeout_s: ((map(.flows[].timeout_stall_s) | add) / ([.[].flows[].timeouts] | add) * 100 | round / 100),
    data_loss: ((map(.flows[].wireless_data_frames_lost) | add) / (map(.flows[].wireless_data_frames) | add) * 100000 | round / 100000),
    ack_loss_mac: ((map(.cells[0].access_drops + .cells[0].collisions
                       - ([.flows[].wireless_data_frames_collided] | add)) | add)
                   / (map(.cells[0].channels[].frames_down) | add) * 10000 | round / 10000),
    aggregate_mbps: ((map(.aggregate.throughput_mbps) | add) / length * 1000 | round / 1000),
    sum_of_senders_mbps: ((map([.flows[].throughput_mbps] | add) | add) / length * 1000 | round / 1000),
    mean_sender_mbps: ((map(.flows[].throughput_mbps) | add) / $fl * 1000 | round / 1000) }
