/** A question before a change that cannot be undone, or that takes a reader's access at once. */
import type { Ref } from 'preact';

/** The question, then the change or "Keep it"; `focus` is the change's button, to take the focus as it opens. */
export function Confirmation({
  id,
  question,
  detail,
  yes,
  focus,
  onYes,
  onNo,
}: {
  id: string;
  question: string;
  detail?: string;
  yes: string;
  focus: Ref<HTMLButtonElement>;
  onYes: () => void;
  onNo: () => void;
}) {
  return (
    <div role="alertdialog" aria-labelledby={id} aria-describedby={detail ? `${id}-detail` : undefined}>
      <p id={id}>{question}</p>
      {detail && <p id={`${id}-detail`}>{detail}</p>}
      <button type="button" class="danger" ref={focus} onClick={onYes}>
        {yes}
      </button>{' '}
      <button type="button" onClick={onNo}>
        Keep it
      </button>
    </div>
  );
}
