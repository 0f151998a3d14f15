/**
 * A labelled input with the API's message for it, if any, beside it (and named by it). A date is
 * typed as the console writes every date, YYYY-MM-DD, where a date input would show the browser's
 * locale (11/26/2026 beside 2026-11-26 everywhere else on the page). A country is picked by name.
 */
import { countries } from './countries';

export interface FieldProps {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  error?: string | undefined;
  type?: 'text' | 'email' | 'password' | 'date' | 'tel';
  required?: boolean;
  autoComplete?: string;
}

export function Field({ id, label, value, onInput, error, type = 'text', required, autoComplete }: FieldProps) {
  const date = type === 'date';
  return (
    <div class="field">
      <label for={id}>{date ? `${label} (YYYY-MM-DD)` : label}</label>
      <input
        id={id}
        name={id}
        type={date ? 'text' : (type as 'text')}
        inputMode={date ? 'numeric' : undefined}
        pattern={date ? '\\d{4}-\\d{2}-\\d{2}' : undefined}
        placeholder={date ? 'YYYY-MM-DD' : undefined}
        value={value}
        required={required}
        autoComplete={autoComplete}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onInput={(e) => onInput((e.currentTarget as HTMLInputElement).value)}
      />
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A labelled picker of one of `options`, with the API's message for it, if any, beside it. */
export function SelectField({
  id,
  label,
  value,
  onInput,
  options,
  error,
}: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  options: readonly { value: string; text: string }[];
  error?: string | undefined;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select
        id={id}
        name={id}
        value={value}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => onInput(e.currentTarget.value)}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.text}
          </option>
        ))}
      </select>
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** Countries by name; a code the list lacks (a three-letter one brought from elsewhere) stays on offer as it is. */
export function CountryField(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  error?: string | undefined;
}) {
  const known = countries();
  const { value } = props;
  const upper = value.toUpperCase();
  const listed = value === '' || known.some((c) => c.code === upper);
  const options = [
    { value: '', text: 'None' },
    ...(listed ? [] : [{ value, text: value }]),
    ...known.map((c) => ({ value: c.code, text: c.name })),
  ];
  return <SelectField {...props} value={listed ? upper : value} options={options} />;
}
