import { BadRequestException } from '@nestjs/common';
import { QueueValidationPipe } from '../http/validation.pipe';
import { CliFailure } from './cli-failure';
import { CLI_EXIT } from './exit-codes';

/** `lockId` → `--lock-id`: the option of the command line that sets a DTO field. */
export function optionOf(field: string): string {
  return `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * A REST validation message with its leading field named as the option that
 * set it (`lockId must be …` → `--lock-id must be …`).
 */
function asOptionMessage(message: string): string {
  return message.replace(/^(?:filter\.)?([a-z][A-Za-z]*)\b/, (_, field: string) => optionOf(field));
}

/**
 * Validates what the options say with the REST route's own DTO and rules
 * (QueueValidationPipe), so the command line accepts exactly what the API
 * accepts.
 *
 * @param dto the route's body class (CreatePauseDto, BulkFilterDto).
 * @param input its fields, from the options (absent ones left out).
 * @returns the DTO instance, values transformed as the route transforms them.
 * @throws CliFailure (exit 2) with one line per invalid field, each naming its option.
 */
export async function validateAs<T extends object>(dto: new () => T, input: Record<string, unknown>): Promise<T> {
  const present = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  try {
    return (await new QueueValidationPipe().transform(present, { type: 'body', metatype: dto, data: '' })) as T;
  } catch (error) {
    throw usageFailureOf(error) ?? error;
  }
}

/**
 * A service's refusal of its input (BadRequestException, a 400 over REST) as a
 * bad-arguments failure naming the option; null for any other error.
 */
export function usageFailureOf(error: unknown): CliFailure | null {
  if (!(error instanceof BadRequestException)) return null;
  const body = error.getResponse() as { message?: unknown };
  const messages = Array.isArray(body.message) ? body.message.map(String) : [String(body.message ?? error.message)];
  return new CliFailure(CLI_EXIT.usage, messages.map(asOptionMessage).join('; '), { cause: error });
}

/**
 * A whole number of milliseconds from an option's text, or the text itself
 * when it is not one (the DTO's rule then refuses it, naming the option).
 */
export function wholeNumberOrText(text: string | undefined): number | string | undefined {
  return text !== undefined && /^[0-9]{1,15}$/.test(text) ? Number(text) : text;
}
