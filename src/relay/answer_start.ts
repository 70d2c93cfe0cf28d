// Whether and when an answer began, for every encoder: plain fields, since the answer's writer
// reads `started` per event, and one place that sets both.

export class AnswerStart {
  /** Something of the answer was written: retries are over, keep-alives may be events. */
  started = false;
  /** When the answer's first piece was made (epoch ms; `0`: not yet), for the call log. */
  startedAt = 0;

  /** Once: an answer that began stays begun. */
  protected begin(): void {
    if (this.started) return;
    this.started = true;
    this.startedAt = Date.now();
  }
}
