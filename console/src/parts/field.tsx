/** A labelled input with the API's message for it, if any, beside it (and named by it). */
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
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        name={id}
        type={type as 'text'}
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
