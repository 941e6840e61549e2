//! The calling thread's CPUs (`sched_getaffinity(2)`, `sched_setaffinity(2)`, `sched_getcpu(3)`):
//! what the engine's thread is pinned to while the hosts take in their packets on the other
//! cores (`host_input.rs`).

use std::io;

/// The CPUs the calling thread may run on, ascending.
pub(crate) fn allowed_cpus() -> io::Result<Vec<usize>> {
    // SAFETY: a zeroed cpu_set_t is an empty set; sched_getaffinity(0) fills the calling thread's
    // mask into the struct it is given, whose size it is told.
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        super::check(libc::sched_getaffinity(
            0,
            std::mem::size_of::<libc::cpu_set_t>(),
            &mut set,
        ))?;
        set
    };
    let bits = 8 * std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: CPU_ISSET reads the set's bit for a CPU below the set's size.
    Ok((0..bits)
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect())
}

/// The CPU the calling thread is on now, if the kernel says.
pub(crate) fn current_cpu() -> Option<usize> {
    // SAFETY: sched_getcpu takes no arguments.
    let c = unsafe { libc::sched_getcpu() };
    usize::try_from(c).ok()
}

/// Lets the calling thread run on `cpus` only (ignores CPUs past the set's size).
pub(crate) fn set_allowed_cpus(cpus: &[usize]) -> io::Result<()> {
    let bits = 8 * std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: CPU_SET writes bits below the set's size only (checked here); sched_setaffinity(0)
    // reads the struct it is given, whose size it is told, for the calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus.iter().filter(|&&c| c < bits) {
            libc::CPU_SET(c, &mut set);
        }
        super::check(libc::sched_setaffinity(
            0,
            std::mem::size_of::<libc::cpu_set_t>(),
            &set,
        ))?;
    }
    Ok(())
}
