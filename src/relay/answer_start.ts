// Whether and when an answer began, for every encoder: plain fields, since the answer's writer
// reads `started` per event, and one place that sets both.

export class AnswerStart {
  started = false;
  startedAt = 0;

  protected begin(): void {
    if (this.started) return;
    this.started = true;
    this.startedAt = Date.now();
  }
}
