//! CPU pinning for `-use-affinity`, as fastchess does it on Linux: each concurrent game slot
//! (a worker thread) is pinned to one CPU of its own before it starts an engine, and the engine
//! processes it spawns inherit the mask, so both engines of every game on that slot share that
//! CPU. Elsewhere pinning is not available and is refused.

use crate::arena::config::Affinity;

/// The CPUs this process may run on, in increasing order.
#[cfg(target_os = "linux")]
pub(crate) fn allowed_cpus() -> Vec<usize> {
    // SAFETY: `set` is a plain bit set owned here; sched_getaffinity writes at most
    // `size_of::<cpu_set_t>()` bytes into it, and CPU_ISSET reads within it for cpu <
    // CPU_SETSIZE.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&cpu| libc::CPU_ISSET(cpu, &set))
            .collect()
    }
}

/// The CPUs this process may run on: unknown off Linux.
#[cfg(not(target_os = "linux"))]
pub fn allowed_cpus() -> Vec<usize> {
    Vec::new()
}

/// Pins the calling thread (and the processes it starts from now on) to `cpu`.
#[cfg(target_os = "linux")]
pub(crate) fn pin_current_thread(cpu: usize) -> std::io::Result<()> {
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(std::io::Error::from(std::io::ErrorKind::InvalidInput));
    }
    // SAFETY: `set` is a zeroed bit set owned here and cpu < CPU_SETSIZE (checked above), so
    // CPU_SET writes inside it; sched_setaffinity(0, ...) only reads it, for this thread.
    let result = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if result == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Pinning is Linux-only here.
#[cfg(not(target_os = "linux"))]
pub(crate) fn pin_current_thread(_cpu: usize) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// The CPU of each of `slots` concurrent game slots under `affinity`, given the CPUs the
/// machine lets this process use (`allowed`): a list naming a CPU not among them, or fewer
/// CPUs than slots (fastchess: "No cores available"), is refused with the reason.
pub(crate) fn slot_cpus(
    affinity: &Affinity,
    slots: usize,
    allowed: &[usize],
) -> Result<Vec<usize>, String> {
    let cpus: Vec<usize> = match affinity {
        Affinity::Auto => allowed.to_vec(),
        Affinity::Cpus(list) => {
            if let Some(cpu) = list.iter().find(|c| !allowed.contains(c)) {
                return Err(format!(
                    "CPU {cpu} is not one this machine lets the runner use (it has {})",
                    cpu_list_text(allowed)
                ));
            }
            list.clone()
        }
    };
    if cpus.len() < slots {
        return Err(format!(
            "{} CPU(s) ({}) for {slots} concurrent games: each game needs a CPU of its own",
            cpus.len(),
            cpu_list_text(&cpus)
        ));
    }
    Ok(cpus[..slots].to_vec())
}

/// `0-3,5` for the CPUs 0, 1, 2, 3 and 5 (in the order given).
pub(crate) fn cpu_list_text(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if j > i {
            format!("{}-{}", cpus[i], cpus[j])
        } else {
            cpus[i].to_string()
        });
        i = j + 1;
    }
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_get_cpus_from_the_list_or_the_machine() {
        let allowed = [0, 1, 2, 3];
        assert_eq!(slot_cpus(&Affinity::Auto, 2, &allowed), Ok(vec![0, 1]));
        assert_eq!(
            slot_cpus(&Affinity::Cpus(vec![3, 1]), 2, &allowed),
            Ok(vec![3, 1])
        );
        let err = slot_cpus(&Affinity::Cpus(vec![1, 7]), 1, &allowed).unwrap_err();
        assert_eq!(
            err,
            "CPU 7 is not one this machine lets the runner use (it has 0-3)"
        );
        let err = slot_cpus(&Affinity::Cpus(vec![2]), 2, &allowed).unwrap_err();
        assert!(
            err.starts_with("1 CPU(s) (2) for 2 concurrent games"),
            "{err}"
        );
        assert_eq!(cpu_list_text(&[0, 1, 2, 3, 5, 7, 8]), "0-3,5,7-8");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_pinned_thread_runs_on_its_cpu_only() {
        let allowed = allowed_cpus();
        assert!(!allowed.is_empty());
        let cpu = *allowed.last().unwrap();
        let seen = std::thread::spawn(move || {
            pin_current_thread(cpu).unwrap();
            allowed_cpus()
        })
        .join()
        .unwrap();
        assert_eq!(seen, vec![cpu]);
    }
}
