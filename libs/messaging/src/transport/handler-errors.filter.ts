import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { type Observable, throwError } from 'rxjs';

/**
 * Nest's default RPC filter replaces an error with `{ status: 'error', message: 'Internal server error' }`
 * and logs it; the delivery needs the error itself (the quarantine records its message) and logs it
 * its own way. Bound to each handler, so no global HTTP filter gets to turn a failure into a success.
 */
@Catch()
export class HandlerErrorsToDelivery implements RpcExceptionFilter {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}
