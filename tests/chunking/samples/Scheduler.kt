package org.example.jobs

import java.time.Duration
import java.time.Instant

/** Runs jobs when they are due. */
class Scheduler(private val clock: () -> Instant = Instant::now) {
    private val jobs = mutableListOf<Job>()

    fun schedule(name: String, every: Duration, action: () -> Unit): Job {
        val job = Job(name, every, clock(), action)
        jobs.add(job)
        return job
    }

    fun runDue(): Int {
        val now = clock()
        val due = jobs.filter { !it.nextRun.isAfter(now) }
        due.forEach { job ->
            job.action()
            job.nextRun = now.plus(job.every)
        }
        return due.size
    }

    companion object {
        fun withSystemClock(): Scheduler = Scheduler()
    }
}

data class Job(val name: String, val every: Duration, var nextRun: Instant, val action: () -> Unit)

fun formatDuration(duration: Duration): String {
    return "${duration.toMinutes()} min"
}
